/**
 * Check specs for the rest of @sd/timesync: NTP in the simulator (Marzullo's selection must leave
 * a falseticker out) and temporal-order delivery.
 */
import {
  checkClockSync,
  type NtpSimEvent,
  ntpSim,
  type TemporalEvent,
  temporalOrder,
} from '@sd/timesync'
import type { NodeId, TimedEvent } from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import { everyClientSettled, typeOf } from './goals.js'
import type { CheckSpec } from './spec.js'
import { describeClockSync } from './timesync.js'

const NTP_SERVERS: readonly NodeId[] = [1, 2, 3, 4]
const FALSETICKER: NodeId = 4
const FALSE_MS = 500
const POLL_MS = 1000
const REPLY_TIMEOUT_MS = 20
/** One poll round and its selection: the second poll is due at POLL_MS, past the bound. */
const NTP_UNTIL_MS = 50
const EPSILON = 1e-6
/** The client's clock: off by tens of ms and drifting. */
const CLIENT_CLOCKS = [{ offset: 37, drift: 1e-4 }]

const clientsOf = (n: number): NodeId[] =>
  Array.from({ length: n - NTP_SERVERS.length }, (_, i): NodeId => NTP_SERVERS.length + i + 1)

export const ntpCheck: CheckSpec = {
  scenario: 'ntp',
  what: `servers 1..4 answer NTP polls with the 48-byte packets; 1, 2 and 3 keep true time, 4 is a falseticker ${FALSE_MS} ms ahead; client 5 (37 ms ahead, 100 ppm fast) polls all four once (reply timeout ${REPLY_TIMEOUT_MS} ms; time bounded at ${NTP_UNTIL_MS} ms, so one round), answers and the timeout in any order. Marzullo's selection never counts the falseticker among the truechimers when most of the servers heard keep true time, and every correction that follows such a selection (reading + offset) is within its reported error bound of true time (checkClockSync); a client that heard the falseticker alone trusts it, and that correction is not judged`,
  defaultN: 5,
  minN: 5,
  // Exhausted at 5 (about 1,300 states); a second client did not finish in 2.5 minutes.
  maxN: 5,
  defaults: { depth: 100, until: NTP_UNTIL_MS },
  liveness: (n) => [everyClientSettled(clientsOf(n))],
  build(n) {
    return ntpScenario(
      n,
      ntpSim({ servers: NTP_SERVERS, pollMs: POLL_MS, replyTimeoutMs: REPLY_TIMEOUT_MS }),
    )
  },
}

/** The NTP spec's scenario around any ntpSim-shaped factory (the tests pass broken ones). */
export function ntpScenario(
  n: number,
  factory: ReturnType<typeof ntpSim>,
): ExploreScenario<NtpSimEvent> {
  const clients = clientsOf(n)
  return {
    setup(net) {
      for (const id of NTP_SERVERS)
        net.addNode(id, { offset: id === FALSETICKER ? FALSE_MS : 0, drift: 0 })
      for (const [i, id] of clients.entries()) net.addNode(id, CLIENT_CLOCKS[i]!)
      net.launch([...NTP_SERVERS, ...clients], (self: NodeId) => factory(self))
    },
    invariant({ events }) {
      // Marzullo's promise: a falseticker is told apart when most of the servers heard keep
      // true time. A client that heard only it (the others' replies held past the timeout)
      // trusts it, rightly by the algorithm's lights: its corrections are not judged then.
      const misled = new Set<NodeId>()
      const judged: Array<TimedEvent<NtpSimEvent>> = []
      for (const e of events) {
        const { node, event } = e
        if (event.type === 'ntp-selection') {
          const heard = [...event.truechimers, ...event.falsetickers]
          const trueHeard = heard.filter((id) => id !== FALSETICKER).length
          const trusted = event.truechimers.includes(FALSETICKER)
          if (trusted && trueHeard > heard.length - trueHeard)
            return `node ${String(node)} counts the falseticker ${String(FALSETICKER)} among its truechimers, though ${trueHeard} of the ${heard.length} servers it heard keep true time`
          if (trusted) misled.add(node)
          else misled.delete(node)
        }
        if (!(event.type === 'adjusted' && misled.has(node))) judged.push(e)
      }
      const verdict = checkClockSync(judged, { referenceAt: (_s, t) => t, epsilonMs: EPSILON })
      return verdict.ok ? undefined : describeClockSync(verdict.violations[0]!)
    },
  }
}

const HOLD_BACK_MS = 5
const SECOND_AT_MS = 1

type Delivery = Extract<TemporalEvent<string>, { type: 'deliver' }>
const deliveries = (events: ReadonlyArray<TimedEvent<TemporalEvent<string>>>, node: NodeId) =>
  events.flatMap((e) => (e.node === node && e.event.type === 'deliver' ? [e.event] : []))
/** Timestamp order, ties by sender and sequence number (as the protocol breaks them). */
const after = (a: Delivery, b: Delivery) =>
  a.ts !== b.ts ? a.ts > b.ts : a.from !== b.from ? Number(a.from) > Number(b.from) : a.seq > b.seq

export const temporalOrderCheck: CheckSpec = {
  scenario: 'temporal-order',
  what: (n) =>
    `${n} members on true clocks, hold-back Δ = ${HOLD_BACK_MS} ms; member 1 broadcasts at 0 ms and member 2 at ${SECOND_AT_MS} ms; the explorer may hold a message while timers fire, so a message may arrive after its hold-back (late). Every member delivers the timely messages in timestamp order, never one before its timestamp + Δ, and marks a message late only if it arrived after its timestamp + Δ`,
  defaultN: 3,
  minN: 2,
  maxN: 4,
  defaults: { depth: 80 },
  liveness: (n) => [
    {
      name: 'every broadcast is delivered: each member delivers both (late or not)',
      holds: ({ events }) =>
        Array.from({ length: n }, (_, i) => i + 1).every(
          (id) => events.filter((e) => e.node === id && typeOf(e.event) === 'deliver').length >= 2,
        ),
    },
  ],
  build(n) {
    return temporalScenario(n, HOLD_BACK_MS)
  },
}

/** The spec's scenario, the members holding back `holdBackMs` (the tests pass 0), judged by Δ. */
export function temporalScenario(
  n: number,
  holdBackMs: number,
): ExploreScenario<TemporalEvent<string>> {
  const members = Array.from({ length: n }, (_, i): NodeId => i + 1)
  return {
    setup(net) {
      net.launch(members, (self: NodeId) => temporalOrder<string>({ holdBackMs })(self))
      net.request(1, { type: 'broadcast', payload: 'a' })
      net.request(2, { type: 'broadcast', payload: 'b' }, SECOND_AT_MS)
    },
    invariant({ events }) {
      for (const id of members) {
        const mine = deliveries(events, id)
        const timely = mine.filter((d) => !d.late)
        for (const d of mine) {
          if (!d.late && d.atMs < d.ts + HOLD_BACK_MS - EPSILON)
            return `node ${String(id)} delivered ${d.payload} at ${d.atMs} ms, before its timestamp ${d.ts} + Δ`
          if (d.late && d.atMs <= d.ts + HOLD_BACK_MS)
            return `node ${String(id)} marked ${d.payload} late at ${d.atMs} ms, within its hold-back`
        }
        for (const [i, d] of timely.entries())
          if (i > 0 && after(timely[i - 1]!, d))
            return `node ${String(id)} delivered ${timely[i - 1]!.payload} before ${d.payload}, out of timestamp order`
      }
      return undefined
    },
  }
}
