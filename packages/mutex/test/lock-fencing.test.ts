import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pollUntil } from '@sd/transport/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { initCounter, readCounter } from './support/lock-counter.js'
import { freePorts, lineWith, spawnWorker, type Worker } from './support/lock-spawn.js'

// A holder paused by SIGSTOP inside its critical section outlives its lease; another process
// enters and writes; the holder resumes and writes with its old token: the counter refuses it.
const workers: Worker[] = []
const dirs: string[] = []

afterEach(() => {
  for (const w of workers.splice(0)) {
    if (w.exitCode !== undefined) continue
    w.proc.kill('SIGCONT') // a stopped process would otherwise wait for SIGKILL stopped
    w.proc.kill('SIGKILL')
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const tokenOf = (line: string | undefined) => Number(line?.split(' ')[1])

describe('fencing tokens between real OS processes', () => {
  it('a holder resumed after SIGSTOP past its lease writes with an old token: refused', async () => {
    const leaseMs = 400
    const dir = mkdtempSync(join(tmpdir(), 'sd-lock-fencing-'))
    dirs.push(dir)
    const counter = join(dir, 'counter.json')
    initCounter(counter)
    const ids = ['c', 'paused', 'next'] // c coordinates and never takes the lock
    const ports = await freePorts(ids.length)
    const peers = Object.fromEntries(ids.map((id, i) => [id, ports[i]!]))
    const base = { peers, coordinator: 'c', counter, leaseMs }
    const [c, paused, next] = ids.map((id, i) =>
      spawnWorker(
        {
          ...base,
          id,
          port: ports[i],
          iterations: id === 'c' ? 0 : 1,
          waitForWrite: id === 'paused',
        },
        workers,
      ),
    ) as [Worker, Worker, Worker]
    await pollUntil(
      () => workers.every((w) => w.lines.includes('READY') || w.exitCode !== undefined),
      'three workers READY',
      120_000,
    )
    for (const w of workers) expect(w.exitCode, `${w.id} exited before READY`).toBeUndefined()
    c.proc.stdin!.write('go\n')

    // The paused worker enters, reads the counter (0), and waits for `write`: stop it there.
    paused.proc.stdin!.write('go\n')
    await pollUntil(
      () => lineWith(paused, 'ENTER') !== undefined || paused.exitCode !== undefined,
      'paused ENTER',
      60_000,
    )
    paused.proc.kill('SIGSTOP')
    const oldToken = tokenOf(lineWith(paused, 'ENTER'))
    expect(oldToken).toBeGreaterThan(0)

    // Without renewals its lease runs out at the coordinator, which lets the other worker in.
    next.proc.stdin!.write('go\n')
    await pollUntil(
      () => next.lines.includes('DONE') || next.exitCode !== undefined,
      'next worker DONE',
      60_000,
    )
    const newToken = tokenOf(lineWith(next, 'ENTER'))
    expect(newToken).toBeGreaterThan(oldToken)
    expect(lineWith(next, 'COMMIT')).toBe('COMMIT 1')
    expect(readCounter(counter)).toEqual({ count: 1, token: newToken, by: { next: 1 } })
    expect(paused.lines.filter((l) => l !== 'READY')).toEqual([`ENTER ${oldToken}`]) // stopped

    // Queue `write` while it is stopped, then resume it: it writes count 1 with its old token.
    // writeFenced reads, compares and renames in separate steps; that is enough here, since the
    // other worker is DONE and the resumed one is the only writer left.
    paused.proc.stdin!.write('write\n')
    paused.proc.kill('SIGCONT')
    await pollUntil(
      () => paused.lines.includes('DONE') || paused.exitCode !== undefined,
      'paused worker DONE after SIGCONT',
      60_000,
    )
    expect(paused.lines.filter((l) => l !== 'READY')).toEqual([
      `ENTER ${oldToken}`,
      `REFUSED ${oldToken}`,
      `LOST ${oldToken} aborted=true`,
      'DONE',
    ])
    expect(readCounter(counter)).toEqual({ count: 1, token: newToken, by: { next: 1 } })

    for (const w of workers) w.proc.stdin!.end('exit\n')
    await pollUntil(() => workers.every((w) => w.exitCode !== undefined), 'workers exited', 60_000)
    for (const w of workers) expect(w.exitCode, w.id).toBe(0)
  })
})
