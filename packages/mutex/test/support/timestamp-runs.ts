/** Workloads and checks Lamport's algorithm and Ricart-Agrawala are both tested with. */
import type { Random } from '@sd/transport'
import { expect } from 'vitest'
import { type Ask, type MutexRun, namedIds, randomAsks, tokensOf } from './harness.js'

/**
 * 2 to 7 nodes `p1`…, asking `perNode` times each on average within `spanMs`, holding up to 25 ms:
 * as long as message delays, so requests often meet a holder.
 */
export function busyWorkload(random: Random, perNode: number, spanMs: number) {
  const ids = namedIds(random.int(2, 7))
  const asks = randomAsks(ids, () => random.next(), perNode * ids.length, spanMs, 25)
  return { ids, asks }
}

/** 2 to 7 nodes `p1`…, each asking once at a random moment of the first 60 ms, holding 1 to 5 ms. */
export function oneAskEach(random: Random) {
  const ids = namedIds(random.int(2, 7))
  const asks: Ask[] = ids.map((node) => ({
    node,
    at: random.int(0, 60),
    hold: random.int(1, 5),
  }))
  return { ids, asks }
}

/**
 * One holder at a time, every request granted, entries in the (T, pid) order of all requests of
 * the run (not only of those that overlapped), and no message refused.
 */
export function expectTimestampOrder<Ev extends { type: string; token?: number }>(
  run: MutexRun<Ev>,
) {
  expect(run.violations).toEqual([])
  expect(run.granted).toBe(run.asked)
  const asked = tokensOf(run, 'requested')
  expect(tokensOf(run, 'acquired')).toEqual([...asked].sort((a, b) => a - b))
  expect(run.events.filter((e) => e.event.type === 'ignored')).toEqual([])
}
