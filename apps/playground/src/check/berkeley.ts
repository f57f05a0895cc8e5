/**
 * Check spec for Berkeley (@sd/timesync): nobody has true time, so the reference is what the
 * package defines: the average of the clocks the master kept in its round.
 */
import { type BerkeleyEvent, berkeley, checkClockSync } from '@sd/timesync'
import type { NodeId, TimedEvent } from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import { everyClientSettled } from './goals.js'
import type { CheckSpec } from './spec.js'
import { describeClockSync } from './timesync.js'

export const MASTER: NodeId = 1
export const BERKELEY = { master: MASTER, thresholdMs: 1000, pollTimeoutMs: 10, maxDrift: 1e-4 }
const { pollTimeoutMs: POLL_TIMEOUT_MS, thresholdMs: THRESHOLD_MS, maxDrift: MAX_DRIFT } = BERKELEY
const EPSILON = 1e-9
/** Hardware clocks: the master true, 2 slow and behind, 3 fast and ahead, 4 far ahead (left out). */
const CLOCKS: Record<number, { offset: number; drift: number }> = {
  1: { offset: 0, drift: 0 },
  2: { offset: -37, drift: -MAX_DRIFT },
  3: { offset: 52, drift: MAX_DRIFT },
  4: { offset: 5000, drift: 0 },
}
/** A node's hardware reading at true time t (the simulator's clock: offset + t (1 + drift)). */
const hardwareAt = (id: NodeId, t: number) =>
  CLOCKS[Number(id)]!.offset + t * (1 + CLOCKS[Number(id)]!.drift)

export const berkeleyCheck: CheckSpec = {
  scenario: 'berkeley',
  what: (n) =>
    `node 1 is the master and runs one round at start (poll timeout ${POLL_TIMEOUT_MS} ms, threshold ${THRESHOLD_MS} ms); node 1's clock is true, node 2's 37 ms behind and ${MAX_DRIFT * 1e6} ppm slow, node 3's 52 ms ahead and as fast${n === 4 ? ", node 4's 5 s ahead (the fault-tolerant average leaves it out, and still corrects it)" : ''}. Deliveries take no virtual time: a round trip lasts as long as the timers that fire meanwhile (the poll timeout). checkClockSync with the reference the package defines, the average of the hardware clocks the round kept: every adjustment's target (reading + offset) is within its error bound of it, and at the end the master adjusted or failed once and every machine that answered in time adjusted once (the explorer may hold an answer past the timeout: that machine is silent in the round)`,
  defaultN: 4,
  minN: 3,
  maxN: 4,
  // Exhausted at n = 4 (about 320 states; 51 at n = 3).
  defaults: { depth: 80 },
  liveness: () => [everyClientSettled([MASTER])],
  build(n) {
    return berkeleyScenario(n, berkeley(BERKELEY))
  },
}

/** The spec's scenario around any Berkeley-shaped factory (the tests pass broken ones). */
export function berkeleyScenario(
  n: number,
  factory: ReturnType<typeof berkeley>,
): ExploreScenario<BerkeleyEvent> {
  const nodes = Array.from({ length: n }, (_, i): NodeId => i + 1)
  return {
    setup(net) {
      for (const id of nodes) net.addNode(id, CLOCKS[Number(id)]!)
      net.launch(nodes, factory)
    },
    invariant({ net, events }) {
      const all = events as ReadonlyArray<TimedEvent<BerkeleyEvent>>
      const round = all.find((e) => e.event.type === 'berkeley-round')?.event
      const kept = round?.type === 'berkeley-round' ? round.kept : []
      // A machine whose answer came after the poll timeout is silent in the round and owed
      // nothing; with no answer in time the master reports sync-failed, alone.
      const owed =
        round?.type === 'berkeley-round'
          ? nodes.filter((id) => !round.silent.includes(id))
          : [MASTER]
      const over = net.choices().length === 0
      const verdict = checkClockSync(all, {
        referenceAt: (_source, t) =>
          kept.reduce<number>((sum, id) => sum + hardwareAt(id, t), 0) / Math.max(kept.length, 1),
        epsilonMs: EPSILON,
        ...(over ? { expectOutcome: owed, rounds: 1 } : {}),
      })
      return verdict.ok ? undefined : describeClockSync(verdict.violations[0]!)
    },
  }
}
