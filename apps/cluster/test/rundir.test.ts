/**
 * Run directories left by a parent killed with SIGKILL (no exit handler runs) are deleted by the
 * next run, and only those: a directory whose owner still runs, or that names no owner, stays.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { deleteStaleRunDirs, makeRunDir } from '../src/rundir.js'

let parent: string | undefined
afterEach(() => {
  if (parent) rmSync(parent, { recursive: true, force: true })
})

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  })
  return Number(child.stdout)
}

describe('run directories', () => {
  it('are named after the parent, and the next run deletes those whose parent is gone', () => {
    parent = mkdtempSync(join(tmpdir(), 'sd-rundir-test-'))
    const dead = deadPid()
    const mine = makeRunDir(parent)
    expect(basename(mine)).toMatch(new RegExp(`^sd-cluster-${process.pid}-\\w{6}$`))
    // What a run killed with SIGKILL leaves: its directory with the nodes' state files.
    const stale = makeRunDir(parent, dead)
    writeFileSync(join(stale, 'n1.json'), '{}')
    mkdirSync(join(stale, 'sub'))
    // Not run directories of a known owner: left alone.
    for (const name of ['sd-cluster-stubs-abc123', 'sd-cluster-store-xyz', 'sd-cluster-Ab12Cd'])
      mkdirSync(join(parent, name))

    expect(deleteStaleRunDirs(parent)).toEqual([stale])
    expect(existsSync(stale)).toBe(false)
    expect(existsSync(mine)).toBe(true)
    expect(readdirSync(parent).sort()).toEqual(
      [
        basename(mine),
        'sd-cluster-Ab12Cd',
        'sd-cluster-stubs-abc123',
        'sd-cluster-store-xyz',
      ].sort(),
    )
    // Nothing left to delete the second time; a missing parent is no error.
    expect(deleteStaleRunDirs(parent)).toEqual([])
    expect(deleteStaleRunDirs(join(parent, 'missing'))).toEqual([])
  })
})
