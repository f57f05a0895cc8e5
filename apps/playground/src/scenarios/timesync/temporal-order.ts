/**
 * Temporal-order delivery in the playground, on clocks Berkeley keeps together: broadcasts carry
 * their sender's synchronized timestamp and every member delivers them in timestamp order once its
 * own clock has passed timestamp + Δ. With Δ = (1 + ρ) D + π nothing is late and every member
 * delivers the same sequence; with Δ = 0 (the second scenario) messages are late, marked, counted.
 */
import { berkeley, temporalOrder } from '@sd/timesync'
import {
  compose,
  createRandom,
  isBoolean,
  isFiniteNumber,
  isUnknown,
  type NodeId,
  oneOf,
  shape,
  type TraceEvent,
} from '@sd/transport'
import type { Scenario, ScenarioOptions, ScenarioRun, Unfinished } from '../../scenario.js'
import {
  around,
  byNode,
  CLOCK_STEP,
  D_MS,
  DISCIPLINE,
  describeSyncEvent,
  innerEvent,
  LINKS,
  MIN_DELAY_MS,
  ms,
  msOrNull,
  RHO,
  runSync,
  spread,
} from './run.js'

const MAX_OFFSET_MS = 50
const PERIOD_MS = 1000
/** Broadcasts start once the first rounds' slews are done (50 ms back at 5% takes 1 s). */
const FROM_MS = 3000
const TO_MS = 8000
const UNTIL = 9000
/** Broadcasts per member. */
const PER_MEMBER = 3
/** Δ of the first pass, which only measures π: the rounds are the same whatever Δ is. */
const GENEROUS_MS = 1000

interface Sent {
  label: string
  from: NodeId
  at: number
}

interface Delivery {
  label: string
  late: boolean
}

/** One run: Berkeley and temporal order composed on every node's clock, broadcasts from 3 s. */
function runTemporal({ n, seed, crash, faults }: ScenarioOptions, holdBackMs: number) {
  const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
  // The master is the lowest live id: the synchronizer needs one up from the start.
  const master = ids.find((id) => !crash.includes(id)) ?? ids[0]!
  const sent: Sent[] = []
  const run = runSync({
    name: 'temporal-order',
    ids,
    seed,
    crash,
    faults,
    until: UNTIL,
    clockOf: (_id, random) => ({
      offset: around(random, MAX_OFFSET_MS),
      drift: around(random, RHO),
    }),
    // What onSharedClock composes, with the clock kept where the run can read it.
    make: (self, clock) =>
      compose({
        sync: berkeley({ master, periodMs: PERIOD_MS, minDelayMs: MIN_DELAY_MS, maxDrift: RHO })(
          self,
          clock,
        ),
        app: temporalOrder<string>({ holdBackMs })(self, clock),
      }),
    plan: (net, live) => {
      if (live.length === 0) return
      const random = createRandom(`temporal-order/broadcasts/${seed}`).next
      const count = new Map<NodeId, number>()
      const plan: Sent[] = []
      for (let k = 0; k < PER_MEMBER * live.length; k++) {
        const from = live[Math.floor(random() * live.length)]!
        const at = FROM_MS + random() * (TO_MS - FROM_MS)
        count.set(from, (count.get(from) ?? 0) + 1)
        plan.push({ label: '', from, at })
      }
      // Labelled m<sender>.<k> in the order each sender broadcasts.
      plan.sort((a, b) => a.at - b.at)
      const seen = new Map<NodeId, number>()
      for (const s of plan) {
        const k = (seen.get(s.from) ?? 0) + 1
        seen.set(s.from, k)
        s.label = `m${String(s.from)}.${k}`
        sent.push(s)
        net.request(s.from, { proto: 'app', req: { type: 'broadcast', payload: s.label } }, s.at)
      }
    },
  })
  const deliveries = new Map<NodeId, Delivery[]>(run.live.map((id) => [id, []]))
  let bound = 0
  for (const { node, event: composed } of run.events) {
    const { proto, event } = composed
    if (proto === 'sync' && event.type === 'berkeley-round')
      bound = Math.max(bound, event.spreadBoundMs)
    if (proto === 'app' && event.type === 'deliver')
      deliveries.get(node)?.push({ label: event.payload, late: event.late })
  }
  // π: every two clocks within the largest bound a round reported, plus a period of drift.
  const precision = bound + 2 * RHO * PERIOD_MS
  return { run, master, sent, deliveries, spreadBound: bound, precision }
}

/** A delivery as a trace holds it (unknown there): checked before it is read. */
const isDelivery = shape({
  type: oneOf('deliver'),
  ts: isFiniteNumber,
  late: isBoolean,
  payload: isUnknown,
})

/** Words for the diagram: a delivery with its timestamp, or a synchronizer's event. */
function describe(entry: TraceEvent): string | undefined {
  if (entry.type !== 'emit') return undefined
  const e = innerEvent(entry.event)
  if (!isDelivery(e)) return describeSyncEvent(entry)
  return `${String(e.payload)} ts=${e.ts.toFixed(3)}${e.late ? ' LATE' : ''}`
}

/** Where two sequences first differ, in words; undefined if they are equal. */
function firstDifference(a: readonly string[], b: readonly string[]): string | undefined {
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) return `at position ${i + 1}: ${a[i] ?? 'nothing'} vs ${b[i] ?? 'nothing'}`
  return undefined
}

function report(
  options: ScenarioOptions,
  holdBack: (precision: number) => number,
  expectOnTime: boolean,
): ScenarioRun {
  // Two passes over the same seed: the first measures π, the second runs with Δ from it.
  const measured = runTemporal(options, GENEROUS_MS).precision
  const holdBackMs = holdBack(measured)
  const { run, master, sent, deliveries, spreadBound, precision } = runTemporal(options, holdBackMs)
  const violations: string[] = []
  const onTime = (id: NodeId) =>
    deliveries
      .get(id)!
      .filter((d) => !d.late)
      .map((d) => d.label)
  const late: Array<{ node: NodeId; label: string }> = []
  for (const [node, list] of deliveries)
    for (const d of list) if (d.late) late.push({ node, label: d.label })

  // Every member delivers every broadcast once (late ones too: nothing is dropped).
  const labels = sent.map((s) => s.label).sort()
  const unfinished: Unfinished[] = []
  for (const [node, list] of deliveries) {
    const missed = labels.filter((l) => !list.some((d) => d.label === l))
    if (missed.length)
      unfinished.push({
        node,
        what: `${missed.length} of ${labels.length} broadcasts at node ${String(node)}`,
        why: `never delivered (${missed.slice(0, 3).join(', ')}${missed.length > 3 ? ', …' : ''})`,
        expected: false,
      })
    const got = list.map((d) => d.label).sort()
    const missing = firstDifference(got, labels)
    if (missing !== undefined)
      violations.push(`node ${node} did not deliver every broadcast exactly once (${missing})`)
  }
  // The on-time sequences: identical when nothing is late; otherwise two messages on time at two
  // members are in the same order at both.
  const members = [...deliveries.keys()]
  let sameSequence = true
  for (const a of members)
    for (const b of members) {
      if (Number(a) >= Number(b)) continue
      const atB = new Set(onTime(b))
      const common = onTime(a).filter((l) => atB.has(l))
      const inA = new Set(common)
      const difference = firstDifference(
        common,
        onTime(b).filter((l) => inA.has(l)),
      )
      const whole = firstDifference(onTime(a), onTime(b))
      if (whole !== undefined) sameSequence = false
      if (difference !== undefined)
        violations.push(
          `nodes ${a} and ${b} deliver their common on-time messages in different orders (${difference})`,
        )
      else if (expectOnTime && whole !== undefined)
        violations.push(`node ${b}'s sequence differs from node ${a}'s (${whole})`)
    }
  if (expectOnTime) {
    for (const { node, label } of late)
      violations.push(`node ${node} delivered ${label} late, with Δ = (1 + ρ) D + π`)
    if (precision > measured + 1e-9)
      violations.push(`π grew from ${ms(measured)} to ${ms(precision)} ms between the two passes`)
    // Beyond π / (1 - ρ) apart in real time, the earlier broadcast is delivered first everywhere.
    const sequence = members.length > 0 ? onTime(members[0]!) : []
    const position = new Map(sequence.map((label, i) => [label, i]))
    for (const a of sent)
      for (const b of sent)
        if (b.at - a.at > precision / (1 - RHO) && position.get(a.label)! > position.get(b.label)!)
          violations.push(
            `${b.label} was delivered before ${a.label}, broadcast ${ms(b.at - a.at)} ms earlier`,
          )
  }
  const errors = run.errors()
  const first = members[0]
  return {
    net: run.net,
    annotate: describe,
    violations,
    liveness: { property: 'every live member delivers every broadcast', unfinished },
    result: {
      master,
      holdBackMs: ms(holdBackMs),
      delayBoundMs: D_MS,
      rho: RHO,
      precisionMs: ms(precision),
      spreadBoundMs: ms(spreadBound),
      broadcasts: sent.length,
      delivered: Object.fromEntries([...deliveries].map(([id, list]) => [String(id), list.length])),
      late: late.length,
      sameSequence,
      sequence: first === undefined ? [] : onTime(first),
      offsetsAfter: byNode(errors),
      spreadAfter: msOrNull(spread(errors.values())),
      crashed: [...options.crash],
    },
    summary: [
      `Δ = ${ms(holdBackMs)} ms (D = ${D_MS} ms, ρ = ${RHO}, π = ${ms(precision)} ms); ${sent.length} broadcasts, ${late.length} late deliveries; ${sameSequence ? 'every member delivered the same sequence' : 'the members delivered different sequences'}`,
    ],
  }
}

const SETUP = `Nodes 1..n run Berkeley (master: the lowest live id, every ${PERIOD_MS / 1000} s) and temporal-order delivery over one software clock per node (onSharedClock's composition). Hardware clocks start up to ±${MAX_OFFSET_MS} ms off and drift up to ±${RHO * 1e6} ppm (exaggerated). From t=${FROM_MS / 1000} s to ${TO_MS / 1000} s, once the clocks have converged, random members broadcast ${PER_MEMBER} x n messages; each carries its sender's clock and is delivered by every member once its own clock passes timestamp + Δ. ${LINKS} ${DISCIPLINE}`

const CRASHES =
  'the named nodes are down from the start: they neither synchronize nor broadcast, and the master is the lowest live id'

/** What the two scenarios share: crashes, faults and sizes. */
const COMMON = {
  crashes: CRASHES,
  pause: {
    accepts:
      'a paused member synchronizes and delivers nothing until its resume: a pause longer than Δ makes what it then delivers late, and the run reports it (the bound on delays is an assumption a pause breaks)',
  },
  clockStep: CLOCK_STEP,
  defaultN: 5,
  minN: 2,
  maxN: 12,
} satisfies Partial<Scenario>

export const timesyncTemporalOrder: Scenario = {
  name: 'temporal-order',
  title: 'temporal order: deliver by synchronized timestamp after Δ = (1 + ρ) D + π',
  description: `${SETUP} Δ comes from the guarantee: Δ = (1 + ρ) D + π, with π the precision, the largest spread bound a Berkeley round reports plus 2ρ x the period; the run is made twice with the same seed, the first to measure π. Checks: no message is late, every member delivers every broadcast in the same sequence, and a message broadcast more than π / (1 - ρ) before another (in real time) is delivered before it.`,
  ...COMMON,
  run(options) {
    return report(options, (precision) => (1 + RHO) * D_MS + precision, true)
  },
}

export const timesyncTemporalOrderLate: Scenario = {
  name: 'temporal-order-late',
  title: 'temporal order with Δ = 0: late messages are delivered at once, marked and counted',
  description: `${SETUP} Here Δ = 0: a message from another member arrives after its timestamp has passed, so it is late unless the receiver's clock is behind by more than the delay: delivered at once, marked LATE, outside the timestamp order (nothing is dropped). The result counts them (late); sameSequence compares the on-time sequences. Checks: every member still delivers every broadcast once, and two messages on time at two members are in the same order at both.`,
  ...COMMON,
  run(options) {
    return report(options, () => 0, false)
  },
}
