/**
 * Per-step invariants of the clocks and time-synchronization scenarios, judged from the trace
 * so far (the scenarios judge theirs at the end, against the whole run; these are the parts a
 * prefix can break):
 * - Lamport clocks (`lamport`, `lamport-pqr`, `make`): the clock condition on what the trace
 *   shows, the stamps messages carry: a node's sends carry rising stamps, each above every stamp
 *   it had received before.
 * - Vector clocks (`vector`, `lamport`): a node's send carries a vector above its previous send's
 *   (its own entry higher) and at least every vector it had received before.
 * - Causal broadcast (`causal-order`): a message is delivered only after everything its vector
 *   says its sender had delivered, and the sender's earlier ones (the scenario's "delivered m2
 *   before m1, which causally precedes it", judged at each delivery); none delivered twice.
 * - Total order (`total-order`) and temporal order (`temporal-order`): every member delivers the
 *   same sequence so far (each position the same message); for temporal order, none late.
 * - NTP: every correction within its error bound of true time, as the scenario judges each one.
 * - Berkeley: the clocks one round sets agree: two corrections of a round within the sum of
 *   their error bounds of each other (each is within its bound of the master's average), plus
 *   the drift between their instants.
 * A node restarted afresh starts its clocks over: what it sent before is forgotten.
 */
import { isRecord, type NodeId, type TimedEvent, type TraceEvent } from '@sd/transport'

export interface TraceJudgeInput {
  events: readonly TimedEvent[]
  trace: readonly TraceEvent[]
  ids: readonly NodeId[]
}

export type TraceJudge = (input: TraceJudgeInput) => string | undefined

/** Beyond it, float noise (as the timesync scenarios judge). */
const EPSILON = 1e-6
/** The simulated clocks' drift bound (the timesync scenarios' ρ). */
const RHO = 1e-4

/** The invariant of a clocks or timesync scenario, or undefined. */
export function clockJudgeFor(
  scenario: string,
  boundJudge: (events: readonly TimedEvent[]) => string | undefined,
): { name: string; judge: TraceJudge } | undefined {
  switch (scenario) {
    case 'lamport':
      return {
        name: 'clock condition: Lamport stamps and vectors rise along causality',
        judge: ({ trace }) => lamportStamps(trace, 'lamport') ?? vectorStamps(trace),
      }
    case 'lamport-pqr':
      return {
        name: 'clock condition: Lamport stamps rise along causality',
        judge: ({ trace }) => lamportStamps(trace, 't'),
      }
    case 'make':
      return {
        name: 'clock condition: Lamport stamps rise along causality',
        judge: ({ trace }) => lamportStamps(trace, 'lamport'),
      }
    case 'vector':
      return {
        name: 'vector clocks rise along causality',
        judge: ({ trace }) => vectorStamps(trace),
      }
    case 'causal-order':
      return {
        name: 'causal delivery: nothing before what causally precedes it, nothing twice',
        judge: ({ events, ids }) => causalDelivery(events, ids),
      }
    case 'total-order':
      return {
        name: 'every member delivers the same sequence',
        judge: ({ events }) => sameSequence(events, (e) => e),
      }
    case 'temporal-order':
      return {
        name: 'no message late; every member delivers the same sequence',
        judge: ({ events }) => late(events) ?? sameSequence(events, appEvent),
      }
    case 'temporal-order-late':
      return {
        name: 'no message late (with Δ = 0 some are: the scenario shows it)',
        judge: ({ events }) => late(events),
      }
    case 'ntp':
      return {
        name: 'every correction within its error bound of true time',
        judge: ({ events }) => boundJudge(events),
      }
    case 'berkeley':
      return {
        name: 'the clocks a round sets agree within their error bounds',
        judge: ({ events }) => berkeleyRounds(events),
      }
    default:
      return undefined
  }
}

type Send = Extract<TraceEvent, { type: 'send' }>

/** Each node's stamp of what it sent and received, in trace order; restarts forget. */
function lamportStamps(trace: readonly TraceEvent[], field: string): string | undefined {
  const stamps = new Map<number, number>()
  const last = new Map<NodeId, { sent: number; received: number }>()
  for (const e of trace) {
    if (e.type === 'restart') last.delete(e.node)
    else if (e.type === 'send') {
      const c = numberField(e.msg, field)
      if (c === undefined) continue
      stamps.set(e.id, c)
      const seen = last.get(e.from)
      if (seen && c <= Math.max(seen.sent, seen.received))
        return c <= seen.sent
          ? `clock condition broken: node ${String(e.from)} sent C=${c} after sending C=${seen.sent}`
          : `clock condition broken: node ${String(e.from)} sent C=${c} after receiving C=${seen.received}`
      last.set(e.from, { sent: c, received: seen?.received ?? Number.NEGATIVE_INFINITY })
    } else if (e.type === 'deliver') {
      const c = stamps.get(e.id)
      if (c === undefined) continue
      const seen = last.get(e.to) ?? {
        sent: Number.NEGATIVE_INFINITY,
        received: Number.NEGATIVE_INFINITY,
      }
      last.set(e.to, { sent: seen.sent, received: Math.max(seen.received, c) })
    }
  }
  return undefined
}

function vectorStamps(trace: readonly TraceEvent[]): string | undefined {
  const vectors = new Map<number, number[]>()
  const last = new Map<NodeId, { sent?: number[]; known?: number[] }>()
  const senders = new Map<number, NodeId>()
  for (const e of trace) {
    if (e.type === 'restart') last.delete(e.node)
    else if (e.type === 'send') {
      const v = vectorField((e as Send).msg, 'vector')
      if (v === undefined) continue
      vectors.set(e.id, v)
      senders.set(e.id, e.from)
      const seen = last.get(e.from) ?? {}
      if (seen.sent && !(atLeast(v, seen.sent) && rose(v, seen.sent)))
        return `vector clock broken: node ${String(e.from)} sent V=[${v}] after sending V=[${seen.sent}]`
      if (seen.known && !atLeast(v, seen.known))
        return `vector clock broken: node ${String(e.from)} sent V=[${v}], not above V=[${seen.known}] it had received`
      last.set(e.from, { ...seen, sent: v })
    } else if (e.type === 'deliver') {
      const v = vectors.get(e.id)
      if (v === undefined) continue
      const seen = last.get(e.to) ?? {}
      last.set(e.to, {
        ...seen,
        known: seen.known ? v.map((x, i) => Math.max(x, seen.known![i]!)) : v,
      })
    }
  }
  return undefined
}

/** The causal broadcast's delivery rule, checked at each delivery from the counts so far. */
function causalDelivery(events: readonly TimedEvent[], ids: readonly NodeId[]): string | undefined {
  const counts = new Map<NodeId, number[]>()
  const delivered = new Set<string>()
  const countsOf = (node: NodeId) => {
    const c = counts.get(node) ?? ids.map(() => 0)
    counts.set(node, c)
    return c
  }
  for (const { node, event } of events) {
    if (!isRecord(event)) continue
    const own = ids.indexOf(node)
    if (event.type === 'broadcast') countsOf(node)[own]!++
    if (event.type !== 'deliver') continue
    const from = event.from as NodeId
    const clock = vectorField(event, 'clock')
    const j = ids.indexOf(from)
    if (clock === undefined || j < 0 || from === node) continue
    const key = `${String(node)}/${String(from)}#${String(event.seq)}`
    if (delivered.has(key))
      return `node ${String(node)} delivered ${String(from)}'s message ${String(event.seq)} twice`
    delivered.add(key)
    const have = countsOf(node)
    for (let k = 0; k < ids.length; k++) {
      const need = k === j ? clock[k]! - 1 : clock[k]!
      if (have[k]! < need)
        return `node ${String(node)} delivered ${String(from)}'s message ${String(event.seq)} (W=[${clock}]) before ${need - have[k]!} message(s) of ${String(ids[k])} that causally precede it`
    }
    have[j]!++
  }
  return undefined
}

/** Position by position, every member's deliveries so far are the same messages. */
function sameSequence(
  events: readonly TimedEvent[],
  inner: (e: unknown) => unknown,
): string | undefined {
  const at: string[] = []
  const first: NodeId[] = []
  const count = new Map<NodeId, number>()
  for (const { node, event } of events) {
    const e = inner(event)
    if (!isRecord(e) || e.type !== 'deliver' || e.late === true) continue
    const what = String(e.payload)
    const i = count.get(node) ?? 0
    count.set(node, i + 1)
    if (at[i] === undefined) {
      at[i] = what
      first[i] = node
    } else if (at[i] !== what)
      return `node ${String(node)} delivered ${what} at position ${i}, node ${String(first[i])} delivered ${at[i]}`
  }
  return undefined
}

function appEvent(e: unknown): unknown {
  return isRecord(e) && e.proto === 'app' ? e.event : undefined
}

function late(events: readonly TimedEvent[]): string | undefined {
  for (const { node, event } of events) {
    const e = appEvent(event)
    if (isRecord(e) && e.type === 'deliver' && e.late === true)
      return `node ${String(node)} delivered ${String(e.payload)} late, after its timestamp + Δ`
  }
  return undefined
}

/** The corrections between one `berkeley-round` and the next agree within their bounds. */
function berkeleyRounds(events: readonly TimedEvent[]): string | undefined {
  let round: Array<{ node: NodeId; t: number; error: number; bound: number }> = []
  let number = 0
  for (const { node, t, event } of events) {
    if (!isRecord(event)) continue
    if (event.type === 'berkeley-round') {
      round = []
      number = Number(event.round)
      continue
    }
    if (event.type !== 'adjusted') continue
    const { readingMs, offsetMs, errorBoundMs } = event
    if (typeof readingMs !== 'number' || typeof offsetMs !== 'number') continue
    if (typeof errorBoundMs !== 'number') continue
    const mine = { node, t, error: readingMs + offsetMs - t, bound: errorBoundMs }
    for (const other of round) {
      const apart = Math.abs(mine.error - other.error)
      const allowed = mine.bound + other.bound + 2 * RHO * Math.abs(t - other.t) + EPSILON
      if (apart > allowed)
        return `round ${number}: node ${String(node)} set its clock ${apart.toFixed(3)} ms from node ${String(other.node)}'s, beyond their bounds ±${mine.bound.toFixed(3)} and ±${other.bound.toFixed(3)} ms`
    }
    round.push(mine)
  }
  return undefined
}

function numberField(value: unknown, field: string): number | undefined {
  if (!isRecord(value)) return undefined
  const x = value[field]
  return typeof x === 'number' ? x : undefined
}

function vectorField(value: unknown, field: string): number[] | undefined {
  if (!isRecord(value)) return undefined
  const x = value[field]
  return Array.isArray(x) && x.every((n) => typeof n === 'number') ? (x as number[]) : undefined
}

/** Every entry of `a` at least `b`'s. */
function atLeast(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x >= b[i]!)
}

/** Some entry of `a` above `b`'s (with `atLeast`: `a` strictly above). */
function rose(a: readonly number[], b: readonly number[]): boolean {
  return a.some((x, i) => x > b[i]!)
}
