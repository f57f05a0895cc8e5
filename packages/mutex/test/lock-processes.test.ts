import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pollUntil } from '@sd/transport/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { initCounter, readCounter, writeFenced } from './support/lock-counter.js'
import { freePorts, spawnWorker as spawnInto, type Worker } from './support/lock-spawn.js'

// Five OS processes share a counter file through the centralized lock over UDP on loopback.
const workers: Worker[] = []
const dirs: string[] = []

afterEach(() => {
  for (const w of workers.splice(0)) if (w.exitCode === undefined) w.proc.kill('SIGKILL')
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A worker, killed by afterEach whatever happens after. */
const spawnWorker = (config: Record<string, unknown>) => spawnInto(config, workers)

const count = (w: Worker, prefix: string) => w.lines.filter((l) => l.startsWith(prefix)).length

/** Starts five workers on one counter file; the first one coordinates (centralized). */
async function startGroup(
  iterations: number,
  leaseMs?: number,
  slow?: { id: string; from: number },
  algorithm?: 'ricart-agrawala',
) {
  const dir = mkdtempSync(join(tmpdir(), 'sd-lock-'))
  dirs.push(dir)
  const counter = join(dir, 'counter.json')
  initCounter(counter)
  const ids = ['w1', 'w2', 'w3', 'w4', 'w5']
  const ports = await freePorts(ids.length)
  const peers = Object.fromEntries(ids.map((id, i) => [id, ports[i]!]))
  const group = ids.map((id, i) =>
    spawnWorker({
      ...{ id, port: ports[i], peers, coordinator: 'w1', counter, iterations, leaseMs },
      slowFrom: id === slow?.id ? slow.from : undefined,
      algorithm,
    }),
  )
  await pollUntil(
    () => group.every((w) => w.lines.includes('READY') || w.exitCode !== undefined),
    'five workers READY',
    120_000,
  )
  for (const w of group) expect(w.exitCode, `${w.id} exited before READY`).toBeUndefined()
  for (const w of group) w.proc.stdin!.write('go\n')
  return { group, counter }
}

/** Waits until every live worker is DONE, tells them to exit, and waits for their exits. */
/** Every process exited cleanly after `each` commits and no refusal, and the file counts them all. */
function expectEveryIncrement(group: Worker[], counter: string, each: number) {
  for (const w of group) {
    expect(w.exitCode, w.id).toBe(0)
    expect(count(w, 'COMMIT'), w.id).toBe(each)
    expect(count(w, 'REFUSED') + count(w, 'LOST') + count(w, 'ERROR'), w.id).toBe(0)
  }
  const final = readCounter(counter)
  expect(final.count).toBe(each * group.length)
  expect(Object.values(final.by)).toEqual(group.map(() => each))
}

async function finish(group: Worker[]) {
  const live = () => group.filter((w) => w.exitCode === undefined || w.exitCode === 0)
  await pollUntil(
    () => group.every((w) => w.lines.includes('DONE') || w.exitCode !== undefined),
    'every worker DONE',
    120_000,
  )
  for (const w of live()) w.proc.stdin!.end('exit\n')
  await pollUntil(() => group.every((w) => w.exitCode !== undefined), 'workers exited', 60_000)
}

describe('the lock between real OS processes over UDP', () => {
  it('the fenced counter file refuses a write with an older token', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sd-lock-'))
    dirs.push(dir)
    const path = join(dir, 'counter.json')
    initCounter(path)
    expect(writeFenced(path, { count: 1, token: 5, by: { a: 1 } }, 'a')).toBe(true)
    expect(writeFenced(path, { count: 2, token: 3, by: { a: 1, b: 1 } }, 'b')).toBe(false)
    expect(writeFenced(path, { count: 2, token: 5, by: { a: 2 } }, 'a')).toBe(false)
    expect(readCounter(path)).toEqual({ count: 1, token: 5, by: { a: 1 } })
  })

  it('five processes increment a counter file 200 times each: it ends at exactly 1,000', async () => {
    const { group, counter } = await startGroup(200)
    await finish(group)
    expectEveryIncrement(group, counter, 200)
  })

  it('Ricart-Agrawala, every process a member and no coordinator: 5 × 50 increments end at 250', async () => {
    const { group, counter } = await startGroup(50, undefined, undefined, 'ricart-agrawala')
    await finish(group)
    expectEveryIncrement(group, counter, 50)
  })

  it('a holder killed by SIGKILL inside its critical section: its lease runs out, and the count equals the acknowledged increments', async () => {
    // Leases let the coordinator take the resource back from the dead holder. The victim is never
    // the coordinator (w1): the centralized lock has no failover without an election.
    const iterations = 100
    const victimId = `w${2 + Math.floor(Math.random() * 4)}`
    const at = 10 + Math.floor(Math.random() * 60) // the entry during which it dies
    // From that entry on the victim's sections last 20 ms, so that the kill lands inside one.
    const { group, counter } = await startGroup(iterations, 2000, { id: victimId, from: at })
    const victim = group.find((w) => w.id === victimId)!
    await pollUntil(
      () => count(victim, 'ENTER') >= at || victim.exitCode !== undefined,
      `${victim.id} entering for the ${at}th time`,
      120_000,
    )
    // A random moment of the section (or, rarely, just after it).
    await new Promise((r) => setTimeout(r, Math.random() * 25))
    victim.proc.kill('SIGKILL')
    await finish(group)
    expect(victim.exitCode).toBeNull() // killed, not exited
    const survivors = group.filter((w) => w !== victim)
    for (const w of survivors) {
      expect(w.exitCode, w.id).toBe(0)
      expect(count(w, 'COMMIT'), w.id).toBe(iterations)
      expect(count(w, 'ERROR'), w.id).toBe(0)
    }
    const final = readCounter(counter)
    const acknowledged = group.reduce((sum, w) => sum + count(w, 'COMMIT'), 0)
    // Every survivor's increments are in the file, one per acknowledgement.
    for (const w of survivors) expect(final.by[w.id], w.id).toBe(count(w, 'COMMIT'))
    // The victim may have renamed its last write in and died before saying so: at most one.
    const unacknowledged = (final.by[victim.id] ?? 0) - count(victim, 'COMMIT')
    expect([0, 1]).toContain(unacknowledged)
    expect(final.count).toBe(acknowledged + unacknowledged)
    expect(final.count).toBe(Object.values(final.by).reduce((a, b) => a + b, 0))
  })
})
