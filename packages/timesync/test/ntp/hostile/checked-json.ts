import type { Guard } from '@sd/transport'

/** `text` parsed from JSON and checked by `guard`: another process's report is unknown until checked. */
export function checkedJson<T>(text: string, guard: Guard<T>, what: string): T {
  const value: unknown = JSON.parse(text)
  if (!guard(value)) throw new Error(`${what} does not fit its shape: ${text.slice(0, 200)}`)
  return value
}
