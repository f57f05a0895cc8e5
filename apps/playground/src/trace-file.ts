/**
 * `--trace FILE` of `sd run` and `sd check`: a file that cannot be written is a bad argument
 * (exit 2, one line saying why), found before the run when the folder is missing.
 */
import { statSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { UsageError } from './usage.js'

/** Refuses a FILE whose folder does not exist or is not a folder, before anything runs. */
export function checkTraceTarget(file: string): void {
  if (file === '') throw new UsageError('--trace takes a file name (or - for stdout), got ""')
  if (file === '-') return
  const folder = dirname(resolve(file))
  const stat = statSync(folder, { throwIfNoEntry: false })
  if (stat === undefined)
    throw new UsageError(`--trace ${file}: the folder ${folder} does not exist; create it first`)
  if (!stat.isDirectory()) throw new UsageError(`--trace ${file}: ${folder} is not a folder`)
}

/** Writes the trace; a refusal of the system (no permission, a folder of that name) is a bad argument. */
export function writeTraceFile(file: string, json: string): void {
  try {
    writeFileSync(file, `${json}\n`)
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined
    const reason =
      code === 'EISDIR'
        ? 'a folder of that name exists'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : typeof code === 'string'
            ? code
            : error instanceof Error
              ? error.message
              : String(error)
    throw new UsageError(`--trace ${file}: cannot write it (${reason})`)
  }
}
