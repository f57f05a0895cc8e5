/**
 * A counter file that protects itself with fencing tokens, as a resource behind a lock should:
 * it holds `{ count, token, by }` (`by`: increments per writer) and takes a write only with a
 * token above the one it holds. A write goes to a temporary file that is then renamed over the
 * counter, so a writer killed at any moment leaves the old content or the new one, never a mix.
 * The check and the rename are two steps: a real resource must compare and set in one (a
 * database's conditional update); here the lock lets one live writer in at a time, and a writer
 * killed by SIGKILL never writes again.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { isNonNegInt, isRecord, shape } from '@sd/transport'

export interface Counter {
  count: number
  token: number
  by: Record<string, number>
}

const isCounts = (v: unknown): v is Record<string, number> =>
  isRecord(v) && Object.values(v).every(isNonNegInt)
const isCounter = shape({ count: isNonNegInt, token: isNonNegInt, by: isCounts })

export function readCounter(path: string): Counter {
  const counter: unknown = JSON.parse(readFileSync(path, 'utf8'))
  if (!isCounter(counter)) throw new Error(`${path} is not a counter: ${JSON.stringify(counter)}`)
  return counter
}

export function initCounter(path: string): void {
  writeFileSync(path, JSON.stringify({ count: 0, token: 0, by: {} }))
}

/** Writes `next` if `token` is above the file's; false (nothing written) otherwise. */
export function writeFenced(path: string, next: Counter, writer: string): boolean {
  if (next.token <= readCounter(path).token) return false
  const tmp = `${path}.${writer}.tmp`
  writeFileSync(tmp, JSON.stringify(next))
  renameSync(tmp, path)
  return true
}
