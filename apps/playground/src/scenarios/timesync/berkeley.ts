/**
 * Berkeley in the playground: nobody has true time; the master polls every machine, averages the
 * offsets that agree and sends each machine its own relative adjustment. One clock is 5 s ahead:
 * the fault-tolerant average leaves it out, and it is still told to slew back to the group.
 */
import { type BerkeleyRequest, berkeley } from '@sd/timesync'
import type { NodeId } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import type { Scenario } from '../../scenario.js'
import {
  around,
  byNode,
  CLOCK_STEP,
  DISCIPLINE,
  describeSyncEvent,
  LINKS,
  MAX_SLEW_RATE,
  MIN_DELAY_MS,
  ms,
  msOrNull,
  offsetsAtStart,
  PAUSE,
  RHO,
  runSync,
  signed,
  spread,
  syncLiveness,
} from './run.js'

const MASTER = 1
const MAX_OFFSET_MS = 200
/** The last node's clock is this far ahead: a broken clock the average must not follow. */
const FAR_MS = 5000
const THRESHOLD_MS = 1000
const PERIOD_MS = 10_000
/** When a crashed master is replaced by the lowest live id, which runs a round at once. */
const FAILOVER_AT = 1000
/** Slewing FAR_MS back at MAX_SLEW_RATE takes 100 s; the last round is at 100 s (101 s after a failover). */
const UNTIL = 105_000
/** Rounding slack for comparisons of sums of floats. */
const EPSILON = 1e-6

export const timesyncBerkeley: Scenario = {
  name: 'berkeley',
  title: 'Berkeley: the master polls, averages the clocks that agree, sends relative adjustments',
  description: `Node 1 is the master; nobody has true time. Every node's hardware clock starts up to ±${MAX_OFFSET_MS} ms off and drifts up to ±${RHO * 1e6} ppm (exaggerated, so drift shows); the last node's is ${FAR_MS / 1000} s ahead. Every ${PERIOD_MS / 1000} s the master polls every machine, estimates each clock's offset from its answer plus half the round trip, averages the offsets within ${THRESHOLD_MS} ms of the median (the fault-tolerant average: the clock ${FAR_MS / 1000} s ahead is ignored) and sends each machine its own adjustment, relative, never an absolute time. The far clock is still corrected: it slews back ${FAR_MS / 1000} s at ${MAX_SLEW_RATE * 100}%, which takes ${FAR_MS / MAX_SLEW_RATE / 1000} s, so the run lasts ${UNTIL / 1000} s. ${LINKS} ${DISCIPLINE} Checks: at the end the spread of the clocks is within the last round's bound (2 x the largest estimate uncertainty) plus 2ρ x the time since.`,
  crashes: `the named nodes are down from the start: the master reports them silent every round and adjusts the others; a crashed master is replaced at t=${FAILOVER_AT} ms by the lowest live id (set-master), which runs a round at once`,
  defaultN: 5,
  // Two clocks 5 s apart have no median to agree on: the far clock needs two others.
  minN: 3,
  maxN: 16,
  pause: PAUSE,
  clockStep: CLOCK_STEP,
  run({ n, seed, crash, faults }) {
    const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
    const far = ids[ids.length - 1]!
    const run = runSync({
      name: 'berkeley',
      ids,
      seed,
      crash,
      faults,
      until: UNTIL,
      clockOf: (id, random) => ({
        offset: around(random, MAX_OFFSET_MS) + (id === far ? FAR_MS : 0),
        drift: around(random, RHO),
      }),
      make: berkeley({
        master: MASTER,
        thresholdMs: THRESHOLD_MS,
        periodMs: PERIOD_MS,
        minDelayMs: MIN_DELAY_MS,
        maxDrift: RHO,
      }),
      plan: (net, live) => {
        const next = live[0]
        if (!crash.includes(MASTER) || next === undefined) return
        net.at(FAILOVER_AT, () => {
          for (const id of live)
            net.request<BerkeleyRequest>(id, { type: 'set-master', master: next })
          net.request<BerkeleyRequest>(next, { type: 'sync' })
        })
      },
    })

    const rounds = ofType(run.events, 'berkeley-round')
    const first = rounds[0]
    const lastRound = rounds[rounds.length - 1]
    const before = offsetsAtStart(run)
    const errors = run.errors()
    const spreadBefore = spread(run.live.map((id) => before.get(id)!))
    const spreadAfter = spread(errors.values())
    const violations: string[] = []
    let spreadBoundMs: number | null = null
    let allowedMs: number | null = null
    let withinBound = true
    if (lastRound !== undefined && spreadAfter !== null) {
      spreadBoundMs = lastRound.event.spreadBoundMs
      allowedMs = spreadBoundMs + 2 * RHO * (run.net.now - lastRound.t)
      // The clocks the last round adjusted: every live one unless it was silent.
      const { silent } = lastRound.event
      const answered = [...errors].filter(([id]) => !silent.includes(id)).map(([, e]) => e)
      const after = spread(answered) ?? 0
      if (after > allowedMs + EPSILON) {
        withinBound = false
        violations.push(
          `the clocks end ${ms(after)} ms apart, beyond the last round's bound plus drift since (${ms(allowedMs)} ms)`,
        )
      }
    }
    const adjusted = ofType(run.events, 'adjusted')
    return {
      net: run.net,
      annotate: describeSyncEvent,
      violations,
      liveness: syncLiveness(
        run.live.filter((id) => !adjusted.some((e) => e.node === id)),
        () => undefined,
      ),
      result: {
        master: lastRound?.node ?? (crash.includes(MASTER) ? (run.live[0] ?? null) : MASTER),
        far: crash.includes(far) ? null : far,
        offsetsBefore: byNode(before),
        offsetsAfter: byNode(errors),
        spreadBefore: msOrNull(spreadBefore),
        spreadAfter: msOrNull(spreadAfter),
        errors: byNode(errors),
        spreadBoundMs: msOrNull(spreadBoundMs),
        allowedMs: msOrNull(allowedMs),
        withinBound,
        rounds: rounds.length,
        firstRound:
          first === undefined
            ? null
            : {
                averageMs: ms(first.event.averageMs),
                kept: first.event.kept,
                ignored: first.event.ignored,
                silent: first.event.silent,
              },
        adjusted: adjusted.length,
        failedRounds: ofType(run.events, 'sync-failed').length,
        crashed: [...crash],
        stillSlewing: run.slewing(),
      },
      summary: [
        `clocks of the live nodes, minus true time: spread ${spreadBefore === null ? '-' : ms(spreadBefore)} ms at the start, ${spreadAfter === null ? '-' : ms(spreadAfter)} ms at the end`,
        first === undefined
          ? 'no round was run'
          : `first round: average ${signed(first.event.averageMs)} ms of the master's clock, ignored ${JSON.stringify(first.event.ignored)}; last bound ${spreadBoundMs === null ? '-' : ms(spreadBoundMs)} ms (+ drift since: ${allowedMs === null ? '-' : ms(allowedMs)} ms)`,
      ],
    }
  },
}
