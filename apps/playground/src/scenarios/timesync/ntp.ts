/**
 * NTP in the playground: four servers answer with the real 48-byte packets, three of them keep
 * true time and one is a falseticker 500 ms ahead. Every other node is a client of all four: it
 * keeps a clock filter per server, runs Marzullo's selection, which must leave the falseticker
 * out, and corrects its software clock. The run checks every correction against true time and the
 * bound the selection reports.
 */
import { ntpSim } from '@sd/timesync'
import { isFiniteNumber, isRecord, type NodeId, oneOf, shape, type TraceEvent } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { appendOnly } from '../../side-state.js'
import {
  around,
  byNode,
  CLOCK_STEP,
  DISCIPLINE,
  describeSyncEvent,
  innerEvent,
  isNodeIds,
  LINKS,
  MAX_SLEW_RATE,
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

const SERVERS: readonly NodeId[] = [1, 2, 3, 4]
/** Its clock is FALSE_MS ahead: selection must find its interval apart from the other three. */
const FALSETICKER = 4
const FALSE_MS = 500
const MAX_OFFSET_MS = 200
const POLL_MS = 500
const REPLY_TIMEOUT_MS = 200
/** Slewing a clock 200 ms ahead back at 5% takes 4 s; twice that leaves the last polls' slews (a few ms) done. */
const UNTIL = 8000
/** Rounding slack for comparisons of sums of floats. */
const EPSILON = 1e-6

/** A selection as a trace holds it (unknown there): checked before it is read. */
const isSelection = shape({
  type: oneOf('ntp-selection'),
  truechimers: isNodeIds,
  falsetickers: isNodeIds,
  silent: isNodeIds,
  lowMs: isFiniteNumber,
  highMs: isFiniteNumber,
})

/**
 * Words for the diagram: the selection (truechimers, falsetickers, silent servers, the interval of
 * offsets in ms they share), a failed poll, a refused reply; corrections as the other synchronizers'.
 */
function describeNtpEvent(entry: TraceEvent): string | undefined {
  if (entry.type !== 'emit') return undefined
  const e = innerEvent(entry.event)
  if (isSelection(e))
    return [
      `trusts ${e.truechimers.join(',')}`,
      e.falsetickers.length > 0 ? `falseticker ${e.falsetickers.join(',')}` : '',
      e.silent.length > 0 ? `silent ${e.silent.join(',')}` : '',
      `[${signed(e.lowMs, 1)}, ${signed(e.highMs, 1)}]`,
    ]
      .filter((part) => part !== '')
      .join(', ')
  if (isRecord(e) && e.type === 'sync-failed')
    return `${String(e.reason).includes('no-sources') ? 'no server answered' : 'no majority'}: clock left alone`
  if (isRecord(e) && e.type === 'ntp-rejected')
    return `rejects server ${String(e.server)}: ${String(e.reason)}`
  return describeSyncEvent(entry)
}

export const timesyncNtp: Scenario = {
  name: 'ntp',
  title: "NTP: clients of 4 servers filter, select by Marzullo's intersection, drop a falseticker",
  description: `Nodes 1 to 4 are NTP servers answering with the real 48-byte packets: 1, 2 and 3 keep true time, 4 is a falseticker ${FALSE_MS} ms ahead. Every other node is a client of all four; its hardware clock starts up to ±${MAX_OFFSET_MS} ms off and drifts up to ±${RHO * 1e6} ppm (exaggerated, so drift shows in an ${UNTIL / 1000} s run). Every ${POLL_MS} ms a client polls every server, keeps the last 8 samples of each (the clock filter: the least round trip wins), and once all have answered (or after ${REPLY_TIMEOUT_MS} ms) runs Marzullo's selection on the intervals offset ± root distance: servers whose interval misses the one a majority shares are falsetickers; it corrects its software clock by the truechimers' offsets weighted by 1/distance and reports as error bound the farthest end of the shared interval. ${LINKS} ${DISCIPLINE} A clock ${MAX_OFFSET_MS} ms ahead slews back in ${MAX_OFFSET_MS / MAX_SLEW_RATE / 1000} s; the run lasts ${UNTIL / 1000} s. Checks: every correction's target is within its bound of true time (the truechimers keep it), no selection trusts the falseticker, and at the end every client is within its last bound (plus drift since, plus what is left of its last slew) of true time. Spreads are over the live clients: the servers, the falseticker among them, are not counted.`,
  crashes: `the named nodes are down from the start: a crashed client is skipped; a crashed server is silent, and selection runs over the servers that answered, a majority of which must agree: two truechimers outvote the falseticker (--crash 1), one against it (--crash 2,3) does not, and then, as with no server at all, every poll ends sync-failed and no clock is corrected; a lone server is a majority of one: a truechimer (--crash 2,3,4) keeps the clients right, the falseticker (--crash 1,2,3) leads them ${FALSE_MS} ms ahead and the run reports the violations`,
  // Four servers and at least one client.
  defaultN: 7,
  minN: SERVERS.length + 1,
  maxN: 16,
  pause: PAUSE,
  clockStep: CLOCK_STEP,
  run({ n, seed, crash, faults }) {
    const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
    const clients = ids.filter((id) => !SERVERS.includes(id))
    // One line per node and kind of violation, with a count of the others like it: those seen
    // while the run goes are listed as they come (side state a rewind cuts back), then folded.
    const seenInRun: Array<[key: string, text: string]> = []
    const found = new Map<string, { first: string; count: number }>()
    const violate = (key: string, text: string) => {
      const seen = found.get(key)
      if (seen === undefined) found.set(key, { first: text, count: 1 })
      else seen.count++
    }
    const run = runSync({
      name: 'ntp',
      ids,
      seed,
      crash,
      faults,
      until: UNTIL,
      clockOf: (id, random) =>
        SERVERS.includes(id)
          ? { offset: id === FALSETICKER ? FALSE_MS : 0, drift: 0 }
          : { offset: around(random, MAX_OFFSET_MS), drift: around(random, RHO) },
      make: ntpSim({ servers: SERVERS, pollMs: POLL_MS, replyTimeoutMs: REPLY_TIMEOUT_MS }),
      observe: ({ node, t, event }) => {
        if (event.type === 'ntp-selection' && event.truechimers.includes(FALSETICKER))
          seenInRun.push([
            `trusts/${node}`,
            `node ${node} at t=${ms(t)} ms trusts the falseticker ${FALSETICKER} (truechimers ${JSON.stringify(event.truechimers)})`,
          ])
        if (event.type !== 'adjusted') return
        // What the client set its clock to, against true time, which the truechimers keep.
        const target = event.readingMs + event.offsetMs
        const off = target - t
        const bound = event.errorBoundMs
        if (Math.abs(off) > bound + EPSILON)
          seenInRun.push([
            `target/${node}`,
            `node ${node} at t=${ms(t)} ms set its clock ${signed(off)} ms off true time, beyond its bound ±${ms(bound)} ms`,
          ])
      },
      observed: appendOnly([seenInRun]),
    })
    for (const [key, text] of seenInRun) violate(key, text)
    const estimatesWithinBound = !seenInRun.some(([key]) => key.startsWith('target/'))

    const last = new Map<NodeId, { t: number; bound: number; offsetMs: number; kind: string }>()
    const falsetickers = new Set<NodeId>()
    const truechimers = new Set<NodeId>()
    let errorBoundMs = 0
    let adjusted = 0
    let steps = 0
    let failedPolls = 0
    let rejected = 0
    let selections = 0
    for (const { node, t, event } of run.events) {
      switch (event.type) {
        case 'ntp-selection':
          selections++
          for (const id of event.falsetickers) falsetickers.add(id)
          for (const id of event.truechimers) truechimers.add(id)
          break
        case 'sync-failed':
          failedPolls++
          break
        case 'ntp-rejected':
          rejected++
          break
        case 'adjusted': {
          adjusted++
          if (event.kind === 'step') steps++
          const bound = event.errorBoundMs
          errorBoundMs = Math.max(errorBoundMs, bound)
          last.set(node, {
            t,
            bound,
            offsetMs: event.offsetMs,
            kind: event.kind,
          })
          break
        }
      }
    }

    const before = offsetsAtStart(run)
    const errors = run.errors()
    let withinBound = true
    for (const [id, error] of errors) {
      const latest = last.get(id)
      if (latest === undefined) continue
      const since = run.net.now - latest.t
      // A slew still under way has |offset| × (1 - hardware ticks since / its ticks) to go.
      const ticks = Math.abs(latest.offsetMs) / MAX_SLEW_RATE
      const left =
        latest.kind === 'slew'
          ? Math.abs(latest.offsetMs) * Math.max(0, 1 - (since * (1 - RHO)) / ticks)
          : 0
      const allowed = latest.bound + RHO * since + left
      if (Math.abs(error) > allowed + EPSILON) {
        withinBound = false
        violate(
          `end/${id}`,
          `node ${id} ends ${signed(error)} ms off true time, beyond its last bound plus drift since${left > 0 ? ' and the rest of its slew' : ''} (±${ms(allowed)} ms)`,
        )
      }
    }
    const violations = [...found.values()].map(({ first, count }) =>
      count > 1 ? `${first} (and ${count - 1} more like it)` : first,
    )
    const liveClients = run.live.filter((id) => !SERVERS.includes(id))
    const spreadBefore = spread(liveClients.map((id) => before.get(id)!))
    const spreadAfter = spread(liveClients.map((id) => errors.get(id)!))
    const sorted = (set: Set<NodeId>) => [...set].sort((a, b) => Number(a) - Number(b))
    return {
      net: run.net,
      annotate: describeNtpEvent,
      violations,
      liveness: syncLiveness(
        liveClients.filter((id) => !last.has(id)),
        () => {
          const down = SERVERS.filter((id) => crash.includes(id))
          return down.length > 0
            ? `blocked by design: with server(s) ${down.join(', ')} down, no majority of the servers that answer agree, so every poll ends sync-failed`
            : undefined
        },
      ),
      result: {
        servers: [...SERVERS],
        falseticker: FALSETICKER,
        offsetsBefore: byNode(before),
        offsetsAfter: byNode(errors),
        spreadBefore: msOrNull(spreadBefore),
        spreadAfter: msOrNull(spreadAfter),
        errors: byNode(errors),
        falsetickers: sorted(falsetickers),
        truechimers: sorted(truechimers),
        errorBoundMs: ms(errorBoundMs),
        estimatesWithinBound,
        withinBound,
        selections,
        adjusted,
        steps,
        slews: adjusted - steps,
        failedPolls,
        rejected,
        unsynced: liveClients.filter((id) => !last.has(id)),
        crashed: [...crash],
        stillSlewing: run.slewing(),
      },
      summary: [
        `clocks of the live clients, minus true time: spread ${spreadBefore === null ? '-' : ms(spreadBefore)} ms at the start, ${spreadAfter === null ? '-' : ms(spreadAfter)} ms at the end`,
        `falsetickers seen: ${JSON.stringify(sorted(falsetickers))}, truechimers: ${JSON.stringify(sorted(truechimers))}; largest error bound reported: ±${ms(errorBoundMs)} ms`,
        `${clients.length - crash.filter((id) => clients.includes(id)).length} client(s), ${selections} selection(s), ${adjusted} correction(s) (${steps} stepped), ${failedPolls} failed poll(s), ${rejected} rejected repl${rejected === 1 ? 'y' : 'ies'}`,
      ],
    }
  },
}
