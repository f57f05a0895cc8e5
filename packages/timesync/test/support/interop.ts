/**
 * What the interoperability tests need of the machine, and the rule for when it lacks it: skip
 * with a notice, except under SD_REQUIRE_ALL=1 (CI), where a missing tool fails the run.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

export type Need = 'root' | 'chronyd' | 'chronyc' | 'capsh' | 'ntpdig' | 'ip'

/** The full path of an executable, looked up in PATH and the sbin directories root uses. */
export function findTool(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/bin']
  for (const dir of dirs) {
    if (dir === '') continue
    try {
      accessSync(join(dir, name), constants.X_OK)
      return join(dir, name)
    } catch {}
  }
  return undefined
}

/** Why these needs cannot be met here, or undefined when they can. */
export function unavailable(needs: readonly Need[]): string | undefined {
  if (process.platform !== 'linux') return 'these tests need Linux'
  const missing: string[] = []
  for (const need of needs) {
    if (need === 'root') {
      if (process.getuid?.() !== 0) missing.push('root')
    } else if (findTool(need) === undefined) missing.push(`\`${need}\``)
  }
  return missing.length ? `missing ${missing.join(', ')}` : undefined
}

/**
 * Checks `needs` for the test `what`: returns why it must be skipped (after a console notice),
 * undefined when it can run; throws when it cannot run and SD_REQUIRE_ALL=1.
 */
export function gate(what: string, needs: readonly Need[]): string | undefined {
  const why = unavailable(needs)
  if (why && process.env.SD_REQUIRE_ALL === '1')
    throw new Error(`${what} cannot run (${why}) and SD_REQUIRE_ALL=1`)
  if (why) console.warn(`skipping ${what}: ${why}`)
  return why
}

export { isAlive } from '../../../../test-support/processes.js'

/** Polls `read` until it returns a value (not undefined), at most `tries` times `everyMs` apart. */
export async function retry<T>(
  what: string,
  tries: number,
  everyMs: number,
  read: () => Promise<T | undefined> | T | undefined,
  describeLast?: () => string,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await read()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  throw new Error(
    `gave up waiting for ${what} after ${tries} tries${describeLast ? `: ${describeLast()}` : ''}`,
  )
}
