import { InvalidArgumentError } from '@sd/transport'

/** Maekawa takes no settings yet; the object is kept for symmetry with the other algorithms. */
export type MaekawaOptions = Record<string, never>

/** Nothing to fill in yet. */
export type MaekawaSettings = Record<string, never>

/** Checks the options (`InvalidArgumentError` on anything but an empty object). */
export function resolveOptions(options: unknown): MaekawaSettings {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError('maekawa: options must be an object')
  }
  const unknown = Object.keys(options)
  if (unknown.length > 0) {
    throw new InvalidArgumentError(`maekawa: unknown option ${JSON.stringify(unknown[0])}`)
  }
  return {}
}
