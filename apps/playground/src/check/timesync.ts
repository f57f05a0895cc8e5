/** Check spec for the timesync package: Cristian's algorithm. */
import { type ClockSyncViolation, checkClockSync, cristian } from '@sd/timesync'
import type { NodeId } from '@sd/transport'
import { everyClientSettled } from './goals.js'
import type { CheckSpec } from './spec.js'

const SERVER: NodeId = 1
/** Samples per round: three with one client; with two (their rounds interleave), 1 and 2. */
const samplesFor = (n: number, self: NodeId) => (n === 2 ? 3 : self === 2 ? 1 : 2)
const SAMPLE_TIMEOUT_MS = 10
const HANDLING_MS = 1
const MAX_DRIFT = 1e-4
/** Float rounding of sums of readings and offsets. */
const EPSILON = 1e-9

/** Client clocks, off by tens of ms: node 2 slow by MAX_DRIFT, node 3 fast by as much. */
const clockOf = (id: NodeId) =>
  id === 2 ? { offset: -37, drift: -MAX_DRIFT } : { offset: 52, drift: MAX_DRIFT }

/** A violation of checkClockSync in the words of these checks. */
export function describeClockSync(v: ClockSyncViolation): string {
  switch (v.kind) {
    case 'outside-bound':
      return `node ${String(v.node)} set its clock ${v.errorMs.toFixed(9)} ms off the reference, beyond its bound ${v.errorBoundMs.toFixed(9)} ms`
    case 'malformed-adjusted':
      return `node ${String(v.node)} emitted an adjusted event without its numbers at ${v.t}`
    case 'outcome-count':
      return `client ${String(v.node)} ended its one round with ${v.got} outcomes`
    case 'no-outcome':
      return `client ${String(v.node)} ended its one round with 0 outcomes`
  }
}

/** The configuration in words, naming only the clients of this run. */
function describeCristian(n: number): string {
  const clients =
    n === 2
      ? `node 2's clock is 37 ms behind and ${MAX_DRIFT * 1e6} ppm slow; it runs one round of 3 samples`
      : `node 2's clock is 37 ms behind and ${MAX_DRIFT * 1e6} ppm slow, node 3's 52 ms ahead and as fast; each client runs one round, of 1 sample for node 2 and 2 for node 3`
  const other = n === 2 ? 'a timeout' : "the other client's timeout"
  return `node 1 is the server (true time); ${clients} (sample timeout ${SAMPLE_TIMEOUT_MS} ms, server handling ${HANDLING_MS} ms, no period, no minimum delay). Deliveries take no virtual time: a round trip lasts as long as the timers that fire meanwhile (handling, ${other}), so the worst asymmetry (request instant, reply as late as a timeout) is reached. Every correction's target (reading + offset) is within its reported error bound of the server's clock at that moment (this check found the bound 2e-8 ms short when the drift allowance was first order; fixed in the package), and at the end ${n === 2 ? 'the client' : 'every client'} adjusted or reported sync-failed, once`
}

export const cristianCheck: CheckSpec = {
  scenario: 'cristian',
  what: describeCristian,
  defaultN: 3,
  minN: 2,
  maxN: 3,
  defaults: { depth: 80 },
  liveness: (n) => [everyClientSettled(Array.from({ length: n - 1 }, (_, i): NodeId => i + 2))],
  build(n) {
    const nodes = Array.from({ length: n }, (_, i): NodeId => i + 1)
    const clients = nodes.filter((id) => id !== SERVER)
    return {
      setup(net) {
        for (const id of clients) net.addNode(id, clockOf(id))
        net.launch(nodes, (self: NodeId) =>
          cristian({
            server: SERVER,
            samples: samplesFor(n, self),
            sampleTimeoutMs: SAMPLE_TIMEOUT_MS,
            handlingMs: HANDLING_MS,
            maxDrift: MAX_DRIFT,
          })(self),
        )
      },
      invariant({ net, events }) {
        // The server's clock is true time: its reading at t is t. (The bound once charged
        // MAX_DRIFT per ms of the client's own clock, which a slow clock under-measures by
        // MAX_DRIFT: this check found the error exceeding it by 2e-8 ms; the package now charges
        // MAX_DRIFT / (1 - MAX_DRIFT).) Outcomes are judged only once the run is over.
        const over = net.choices().length === 0
        const verdict = checkClockSync(events, {
          referenceAt: (_source, t) => t,
          epsilonMs: EPSILON,
          ...(over ? { expectOutcome: clients, rounds: 1 } : {}),
        })
        return verdict.ok ? undefined : describeClockSync(verdict.violations[0]!)
      },
    }
  },
}
