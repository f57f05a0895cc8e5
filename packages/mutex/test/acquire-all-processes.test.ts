import { fileURLToPath } from 'node:url'
import { pollUntil } from '@sd/transport/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { freePorts, type Worker } from '../../../test-support/processes.js'
import { checkMutualExclusion } from '../src/check.js'
import { count, finish, spawnReady } from './support/process-group.js'
import { type SetEntry, setEntriesOf, setHoldingEvents } from './support/set-lines.js'

// acquireAll between three OS processes over UDP on loopback, over centralized() with leases:
// overlapping sets asked in different orders, and a holder of two resources killed inside its
// section. Every process stamps its lines with CLOCK_MONOTONIC, so the parent judges all of them
// together with the all-nodes checker, resource by resource.
const script = fileURLToPath(new URL('./support/acquire-all-worker.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const LEASE_MS = 1500
/** The killed entry's section: the parent's SIGKILL has this long to land inside it. */
const HOLD_MS = 2000
const ITERATIONS = 30
/** Each process's sets, taken in turn: overlapping, and written in different orders. */
const SETS: Record<string, string[][]> = {
  w1: [
    ['a', 'b'],
    ['b', 'a'],
    ['a', 'b', 'c'],
  ],
  w2: [
    ['b', 'a'],
    ['a', 'b', 'c'],
    ['a', 'b'],
  ],
  w3: [
    ['a', 'b', 'c'],
    ['c', 'b'],
    ['b', 'a'],
  ],
}
const IDS = Object.keys(SETS)

const workers: Worker[] = []
afterEach(() => {
  for (const w of workers.splice(0)) if (w.exitCode === undefined) w.proc.kill('SIGKILL')
})

/** Three workers told to go, w1 coordinating; `hold` lengthens one entry's section. */
async function startGroup(hold?: { id: string; at: number }) {
  const ports = await freePorts(IDS.length)
  const peers = Object.fromEntries(IDS.map((id, i) => [id, ports[i]!]))
  const configs = IDS.map((id, i) => ({
    ...{ id, port: ports[i], peers, coordinator: 'w1', leaseMs: LEASE_MS },
    ...{ iterations: ITERATIONS, sets: SETS[id] },
    ...(id === hold?.id ? { holdAt: hold.at, holdMs: HOLD_MS } : {}),
  }))
  const group = await spawnReady(script, packageDir, configs, workers)
  for (const w of group) w.proc.stdin!.write('go\n')
  return group
}

const violationsOf = (entries: readonly SetEntry[]) => {
  let base = entries[0]!.enter
  for (const e of entries) if (e.enter < base) base = e.enter
  return checkMutualExclusion(setHoldingEvents(entries, base)).violations
}

/**
 * Every process's entries judged together: each took exactly its set, and no resource ever had
 * two holders.
 */
function judge(group: readonly Worker[]) {
  for (const w of group) {
    setEntriesOf(w).forEach((e, i) => {
      const set = SETS[w.id]![i % SETS[w.id]!.length]!
      expect(Object.keys(e.tokens), `${w.id} entry ${i + 1}`).toEqual([...set].sort())
    })
  }
  expect(violationsOf(group.flatMap(setEntriesOf))).toEqual([])
}

/** A process that ran all its entries and acted in each, and exited cleanly. */
function expectEveryAct(w: Worker) {
  expect(w.exitCode, w.id).toBe(0)
  expect(count(w, 'ACT'), w.id).toBe(ITERATIONS)
  expect(count(w, 'LOST') + count(w, 'ERROR'), w.id).toBe(0)
}

describe('the judge of the acquireAll test', () => {
  const entry = (node: string, tokens: Record<string, number>, from: number, to: number) => ({
    node,
    tokens,
    enter: BigInt(from),
    act: BigInt(to),
  })

  it('finds two holders of one resource of overlapping sets, not of disjoint ones', () => {
    const overlapping = [entry('x', { a: 1, b: 1 }, 1, 10), entry('y', { b: 2, c: 1 }, 5, 6)]
    expect(violationsOf(overlapping)).toHaveLength(1)
    const disjoint = [entry('x', { a: 1, b: 1 }, 1, 10), entry('y', { c: 1 }, 5, 6)]
    expect(violationsOf(disjoint)).toEqual([])
  })
})

describe('acquireAll between three processes over UDP', () => {
  it(`overlapping sets in different orders: every process runs its ${ITERATIONS} entries (no deadlock), and no resource ever has two holders`, async () => {
    const group = await startGroup()
    await finish(group)
    for (const w of group) expectEveryAct(w)
    judge(group)
  })

  it('a holder of two resources killed by SIGKILL inside its section: the survivors finish once its lease ran out', async () => {
    const at = 3 + Math.floor(Math.random() * 5) // the entry during which it dies
    const group = await startGroup({ id: 'w2', at })
    const victim = group.find((w) => w.id === 'w2')!
    await pollUntil(
      () => count(victim, 'ENTER') >= at || victim.exitCode !== undefined,
      `w2 entering for the ${at}th time`,
      120_000,
    )
    victim.proc.kill('SIGKILL')
    await finish(group)
    expect(victim.exitCode).toBeNull() // killed, not exited
    const last = setEntriesOf(victim).at(-1)!
    expect(setEntriesOf(victim)).toHaveLength(at)
    expect(Object.keys(last.tokens).length).toBeGreaterThanOrEqual(2)
    expect(last.act, 'w2 acted before the kill').toBeUndefined()
    for (const w of group) if (w !== victim) expectEveryAct(w)
    // The survivors took the dead holder's resources again, with higher tokens.
    for (const [resource, token] of Object.entries(last.tokens)) {
      const later = group.flatMap(setEntriesOf).filter((e) => (e.tokens[resource] ?? 0) > token)
      expect(later.length, resource).toBeGreaterThan(0)
    }
    judge(group)
  })
})
