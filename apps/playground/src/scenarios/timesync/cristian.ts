/**
 * Cristian's algorithm in the playground: node 1 is the time server (a UTC receiver: its clock is
 * true time), every other node asks it for the time a few times per round and keeps the answer
 * with the least round trip. The run checks the error bound every correction reports.
 */
import { cristian } from '@sd/timesync'
import type { NodeId } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { appendOnly } from '../../side-state.js'
import {
  around,
  byNode,
  CLOCK_STEP,
  DISCIPLINE,
  describeSyncEvent,
  LINKS,
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

const SERVER = 1
const MAX_OFFSET_MS = 200
const SAMPLES = 4
const PERIOD_MS = 2000
const ROUNDS = 4
/** A second after the last round: its slews (a few ms) are done. */
const UNTIL = (ROUNDS - 1) * PERIOD_MS + 1000
/** Rounding slack for comparisons of sums of floats. */
const EPSILON = 1e-6

export const timesyncCristian: Scenario = {
  name: 'cristian',
  title: "Cristian's algorithm: clients ask a time server, T = C_utc + (T1 - T0 - I) / 2",
  description: `Node 1 is the time server: its clock is true time. The other nodes' hardware clocks start up to ±${MAX_OFFSET_MS} ms off and drift up to ±${RHO * 1e6} ppm (exaggerated, so drift shows in a ${UNTIL / 1000} s run). Every ${PERIOD_MS / 1000} s (${ROUNDS} rounds) each client sends ${SAMPLES} requests, keeps the answer with the least round trip, takes T = C_utc + (T1 - T0 - I) / 2 and corrects its software clock, reporting an error bound of half the round trip less the minimum delay (${MIN_DELAY_MS} ms) plus drift. ${LINKS} ${DISCIPLINE} The run ends ${(UNTIL - (ROUNDS - 1) * PERIOD_MS) / 1000} s after the last round, its slews done. Checks: every correction's target is within its bound of the server's clock at that instant, and at the end every client is within its last bound (plus drift since) of true time.`,
  crashes:
    'the named nodes are down from the start: a crashed client is skipped (listed under crashed); with the server down every round ends sync-failed and no clock is corrected',
  defaultN: 5,
  minN: 2,
  maxN: 16,
  pause: PAUSE,
  clockStep: CLOCK_STEP,
  run({ n, seed, crash, faults }) {
    const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
    // Filled while the run goes (observe) and then by the end checks.
    const violations: string[] = []
    const run = runSync({
      name: 'cristian',
      ids,
      seed,
      crash,
      faults,
      until: UNTIL,
      clockOf: (id, random) =>
        id === SERVER
          ? { offset: 0, drift: 0 }
          : { offset: around(random, MAX_OFFSET_MS), drift: around(random, RHO) },
      make: cristian({
        server: SERVER,
        samples: SAMPLES,
        periodMs: PERIOD_MS,
        minDelayMs: MIN_DELAY_MS,
        maxDrift: RHO,
      }),
      observe: ({ node, t, event }, clockOf) => {
        if (event.type !== 'adjusted') return
        // What the client set its clock to, against what the server's clock read at that instant.
        const target = event.readingMs + event.offsetMs
        const off = target - clockOf(SERVER)
        const bound = event.errorBoundMs
        if (Math.abs(off) > bound + EPSILON)
          violations.push(
            `node ${node} at t=${ms(t)} ms set its clock ${signed(off)} ms off the server's, beyond its bound ±${ms(bound)} ms`,
          )
      },
      observed: appendOnly([violations]),
    })
    // Only the corrections' checks have spoken yet.
    const estimatesWithinBound = violations.length === 0

    const last = new Map<NodeId, { t: number; bound: number }>()
    let errorBoundMs = 0
    let adjusted = 0
    let steps = 0
    let failed = 0
    for (const { node, t, event } of run.events) {
      if (event.type === 'sync-failed') failed++
      if (event.type !== 'adjusted') continue
      adjusted++
      if (event.kind === 'step') steps++
      const bound = event.errorBoundMs
      errorBoundMs = Math.max(errorBoundMs, bound)
      last.set(node, { t, bound })
    }

    const before = offsetsAtStart(run)
    const errors = run.errors()
    let withinBound = true
    for (const [id, error] of errors) {
      const latest = last.get(id)
      if (latest === undefined) continue
      const allowed = latest.bound + RHO * (run.net.now - latest.t)
      if (Math.abs(error) > allowed + EPSILON) {
        withinBound = false
        violations.push(
          `node ${id} ends ${signed(error)} ms off true time, beyond its last bound plus drift since (±${ms(allowed)} ms)`,
        )
      }
    }
    const clients = ids.filter((id) => id !== SERVER)
    const spreadBefore = spread(run.live.map((id) => before.get(id)!))
    const spreadAfter = spread(errors.values())
    return {
      net: run.net,
      annotate: describeSyncEvent,
      violations,
      liveness: syncLiveness(
        run.live.filter((id) => id !== SERVER && !last.has(id)),
        () =>
          crash.includes(SERVER)
            ? `blocked by design: the server (node ${SERVER}) is down, so every round ends sync-failed`
            : undefined,
      ),
      result: {
        server: SERVER,
        offsetsBefore: byNode(before),
        offsetsAfter: byNode(errors),
        spreadBefore: msOrNull(spreadBefore),
        spreadAfter: msOrNull(spreadAfter),
        errors: byNode(errors),
        errorBoundMs: ms(errorBoundMs),
        estimatesWithinBound,
        withinBound,
        adjusted,
        steps,
        slews: adjusted - steps,
        failedRounds: failed,
        unsynced: run.live.filter((id) => id !== SERVER && !last.has(id)),
        crashed: [...crash],
        stillSlewing: run.slewing(),
      },
      summary: [
        `clocks of the live nodes, minus true time: spread ${spreadBefore === null ? '-' : ms(spreadBefore)} ms at the start, ${spreadAfter === null ? '-' : ms(spreadAfter)} ms at the end`,
        `largest error bound reported: ±${ms(errorBoundMs)} ms; ${clients.length - crash.filter((id) => id !== SERVER).length} client(s), ${adjusted} correction(s) (${steps} stepped), ${failed} failed round(s)`,
      ],
    }
  },
}
