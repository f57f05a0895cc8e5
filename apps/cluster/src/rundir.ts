/**
 * The run directory (state files, the counter): `sd-cluster-<pid>-XXXXXX` in the temporary
 * directory, named after the parent's pid so that the next run can tell a directory whose run is
 * gone (its parent killed with SIGKILL, which no exit handler sees) from one in use.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { running } from './hosts.js'

const PREFIX = 'sd-cluster-'
const OWNED = /^sd-cluster-(\d+)-[A-Za-z0-9]{6}$/

export function makeRunDir(parent = tmpdir(), pid = process.pid): string {
  return mkdtempSync(join(parent, `${PREFIX}${pid}-`))
}

/**
 * Deletes the run directories in `parent` whose owner process is gone; returns their paths.
 * Directories of a live process, or without an owner in their name, are left alone.
 */
export function deleteStaleRunDirs(parent = tmpdir()): string[] {
  const deleted: string[] = []
  let names: string[]
  try {
    names = readdirSync(parent)
  } catch {
    return deleted
  }
  for (const name of names) {
    const owner = OWNED.exec(name)?.[1]
    if (owner === undefined || running(Number(owner))) continue
    const path = join(parent, name)
    try {
      rmSync(path, { recursive: true, force: true })
      deleted.push(path)
    } catch {} // another user's, or being deleted: not ours to insist on
  }
  return deleted
}
