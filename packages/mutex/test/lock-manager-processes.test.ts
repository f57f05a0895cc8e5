import { fileURLToPath } from 'node:url'
import { pollUntil } from '@sd/transport/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { freePorts, type Worker } from '../../../test-support/processes.js'
import { checkMutualExclusion } from '../src/check.js'
import { type Entry, entriesOf, holdingEvents } from './support/family-lines.js'
import { count, finish, linesOf, spawnReady } from './support/process-group.js'

// The Web Locks shape (createLockManager) between OS processes over UDP on loopback, over
// centralized() with leases: a holder killed inside its callback, one stopped past its lease, and
// a steal from another process. Every process stamps its lines with CLOCK_MONOTONIC, so the
// parent judges all of them together with the all-nodes checker.
const script = fileURLToPath(new URL('./support/lock-manager-worker.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const LEASE_MS = 1500
/**
 * The faulty entry's callback: the parent's signal has this long to land inside it. Longer than
 * the lease by a margin, so that a holder stopped soon after entering finds its lease's end
 * (a timer or a message) handled before its own sleep's timer: the Lock has no clock check.
 */
const HOLD_MS = 3000
const ITERATIONS = 15
const MODES = { w1: 'shared', w2: 'exclusive', w3: 'exclusive', w4: 'shared', w5: 'shared' }
const IDS = Object.keys(MODES) as Array<keyof typeof MODES>

const workers: Worker[] = []
afterEach(() => {
  // SIGKILL ends a stopped process too.
  for (const w of workers.splice(0)) if (w.exitCode === undefined) w.proc.kill('SIGKILL')
})

const now = () => process.hrtime.bigint()

/** Workers `ids`, w1 coordinating; `hold` lengthens one entry's callback. */
async function startGroup(ids: readonly string[], hold?: { id: string; at: number }) {
  const ports = await freePorts(ids.length)
  const peers = Object.fromEntries(ids.map((id, i) => [id, ports[i]!]))
  const configs = ids.map((id, i) => ({
    ...{ id, port: ports[i], peers, coordinator: 'w1', leaseMs: LEASE_MS },
    ...{ iterations: ITERATIONS, mode: MODES[id as keyof typeof MODES] ?? 'exclusive' },
    ...(id === hold?.id ? { holdAt: hold.at, holdMs: HOLD_MS } : {}),
  }))
  return spawnReady(script, packageDir, configs, workers)
}

/** Every process's entries judged together: each in its mode, and the checker finds no overlap. */
function judge(group: readonly Worker[]): Entry[] {
  const entries = group.flatMap(entriesOf)
  for (const e of entries) {
    expect(e.granted, `${e.node} token ${e.token}`).toBe(MODES[e.node as keyof typeof MODES])
  }
  let base = entries[0]!.enter
  for (const e of entries) if (e.enter < base) base = e.enter
  expect(checkMutualExclusion(holdingEvents(entries, base)).violations).toEqual([])
  return entries
}

/** A process that ran all its entries and acted in each, never aborted, and exited cleanly. */
function expectEveryAct(w: Worker, iterations: number) {
  expect(w.exitCode, w.id).toBe(0)
  expect(count(w, 'ACT'), w.id).toBe(iterations)
  expect(count(w, 'LOST') + count(w, 'REJECTED') + count(w, 'ERROR'), w.id).toBe(0)
}

const enteredAt = (w: Worker, at: number) => () =>
  count(w, 'ENTER') >= at || w.exitCode !== undefined

describe('the Web Locks API (createLockManager) between five processes over UDP', () => {
  it('a writer killed by SIGKILL inside its callback: its lease runs out, and every survivor finishes', async () => {
    const at = 3 + Math.floor(Math.random() * 5) // the entry during which it dies
    const group = await startGroup(IDS, { id: 'w3', at })
    for (const w of group) w.proc.stdin!.write('go\n')
    const victim = group.find((w) => w.id === 'w3')!
    await pollUntil(enteredAt(victim, at), `w3 entering for the ${at}th time`, 120_000)
    const killedAt = now()
    victim.proc.kill('SIGKILL')
    await finish(group)
    expect(victim.exitCode).toBeNull() // killed, not exited
    expect(entriesOf(victim)).toHaveLength(at)
    const last = entriesOf(victim).at(-1)!
    expect(last.act, `w3 acted at ${last.act} before the kill at ${killedAt}`).toBeUndefined()
    for (const w of group) if (w !== victim) expectEveryAct(w, ITERATIONS)
    judge(group)
  })

  it('a writer stopped by SIGSTOP past its lease: others get in meanwhile; resumed, its request has rejected with AbortError and it does not act', async () => {
    const at = 3 + Math.floor(Math.random() * 4)
    const group = await startGroup(IDS, { id: 'w2', at })
    for (const w of group) w.proc.stdin!.write('go\n')
    const victim = group.find((w) => w.id === 'w2')!
    await pollUntil(enteredAt(victim, at), `w2 entering for the ${at}th time`, 120_000)
    const stoppedAt = now()
    victim.proc.kill('SIGSTOP')
    const entered = () =>
      group
        .filter((w) => w !== victim)
        .flatMap(entriesOf)
        .filter((e) => e.enter > stoppedAt)
    // Stopped 2.5 leases at least (longer than its callback's sleep), until others entered.
    const stopNs = BigInt(2.5 * LEASE_MS * 1e6)
    await pollUntil(
      () => now() - stoppedAt >= stopNs && entered().length > 0,
      'others entering while w2 is stopped',
      60_000,
    )
    const resumedAt = now()
    victim.proc.kill('SIGCONT')
    await finish(group)

    const mine = entriesOf(victim)[at - 1]!
    expect(mine.act, `w2 acted at ${mine.act}: stopped at ${stoppedAt}`).toBeUndefined()
    expect(mine.lost?.code).toBe('ERR_LEASE_LOST')
    expect(mine.lost!.at).toBeGreaterThan(resumedAt)
    const rejected = linesOf(victim, 'REJECTED')
    expect(rejected.map(([, token, name, code]) => [Number(token), name, code])).toEqual([
      [mine.token, 'AbortError', 'ERR_LOCK_ABORTED'],
    ])
    expect(BigInt(rejected[0]![0]!)).toBeGreaterThan(resumedAt)
    // Then it goes on: every other entry of its loop acted.
    expect(victim.exitCode).toBe(0)
    expect(count(victim, 'ACT')).toBe(ITERATIONS - 1)
    expect(count(victim, 'LOST')).toBe(1)
    for (const w of group) if (w !== victim) expectEveryAct(w, ITERATIONS)
    judge(group)
  })
})

describe('a steal between processes over UDP', () => {
  it('the victim sees its signal aborted and stops acting before the stealer acts; a third process queries the holder', async () => {
    const group = await startGroup(['w1', 'w2', 'w3', 'w4'])
    const [, victim, stealer, observer] = group as [Worker, Worker, Worker, Worker]
    const queried = async () => {
      const before = count(observer, 'QUERY')
      observer.proc.stdin!.write('query\n')
      await pollUntil(() => count(observer, 'QUERY') > before, 'w4 querying', 30_000)
      return JSON.parse(linesOf(observer, 'QUERY').at(-1)!.join(' '))
    }
    victim.proc.stdin!.write('hold stolen\n')
    await pollUntil(() => count(victim, 'ACT') >= 3, 'w2 holding', 60_000)
    expect(await queried()).toEqual([{ name: 'stolen', mode: 'exclusive', clientId: 'w2' }])

    stealer.proc.stdin!.write('steal stolen\n')
    await pollUntil(() => count(stealer, 'ACT') >= 3, 'w3 holding after its steal', 60_000)
    expect(await queried()).toEqual([{ name: 'stolen', mode: 'exclusive', clientId: 'w3' }])
    stealer.proc.stdin!.write('release\n')
    await pollUntil(
      () => count(stealer, 'LEAVE') === 1 && count(victim, 'LEAVE') === 1,
      'both callbacks returned',
      30_000,
    )
    for (const w of group) w.proc.stdin!.end('exit\n')
    await pollUntil(() => group.every((w) => w.exitCode !== undefined), 'workers exited', 60_000)
    for (const w of group) expect([w.id, w.exitCode, count(w, 'ERROR')]).toEqual([w.id, 0, 0])

    const [held, took] = [entriesOf(victim)[0]!, entriesOf(stealer)[0]!]
    expect(took.token).toBeGreaterThan(held.token)
    // The victim's signal was aborted as stolen, its request rejected, and it stopped acting...
    const [aborted] = linesOf(victim, 'ABORTED')
    expect(aborted?.slice(1)).toEqual([String(held.token), 'stolen'])
    expect(linesOf(victim, 'REJECTED').map((l) => l.slice(2))).toEqual([
      ['AbortError', 'ERR_LOCK_ABORTED'],
    ])
    const acts = linesOf(victim, 'ACT').map(([ns]) => BigInt(ns!))
    expect(acts.every((ns) => ns < BigInt(aborted![0]!))).toBe(true)
    // ...before the stealer entered: their ACT windows do not overlap.
    expect(held.act!, `w2 acted at ${held.act}, w3 entered at ${took.enter}`).toBeLessThan(
      took.enter,
    )
    const base = held.enter
    expect(checkMutualExclusion(holdingEvents([held, took], base)).violations).toEqual([])
    expect(count(stealer, 'REJECTED') + count(stealer, 'ABORTED')).toBe(0)
  })
})
