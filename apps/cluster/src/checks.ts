/**
 * The global checks of a run: the merged events of every node, judged with the checkers the
 * simulator's runs are judged with (`checkMutualExclusion` of @sd/mutex, `checkElection` of
 * @sd/election), against the faults the nemesis applied, in the shapes of @sd/transport's
 * `emitsOf` / `faultsOf`. One time base: ms since the parent started (the trace's), on the
 * machine's monotonic clock, which every node's monotonic clock also reads (see wire.ts), so the
 * lease deadlines nodes emit compare with other nodes' event times.
 *
 * Rules: no two valid leases on a resource overlap in real time (a lease is valid from `acquired`
 * to the earliest of its release, its expiry, the holder's crash or pause); fencing tokens
 * strictly increase in entry order across all nodes; one leader per term, terms never go back at
 * a node; no leader on a minority side.
 */
import { checkElection, type ElectionViolation } from '@sd/election'
import { checkMutualExclusion } from '@sd/mutex'
import {
  type EmittedEvent,
  emitsOf,
  type FaultEvent,
  faultsOf,
  type TraceDocument,
  type TraceEvent,
} from '@sd/transport'
import { DEFAULT_TIMINGS, formatToken, type NodeTimings } from './node/protocol.js'

/**
 * How long a leader cut off from a majority (by a partition, or by the crash or pause of the
 * others) may go on leading: the election's detection timeout, the bound the simulator holds the
 * majority election to, plus one heartbeat interval for the timers of real processes on a busy
 * machine, which fire late. A leader that acts for seconds on a minority side is far beyond it.
 */
export const minorityGraceMs = (t: NodeTimings) => t.timeoutMs + t.heartbeatMs

export interface CheckInput {
  /** Every member of the cluster. */
  nodes: string[]
  /** The lock's events of every node (`acquired`, `lease-renewed`, `released`, ...). */
  lock: EmittedEvent[]
  /** The election's events of every node (`leader`, `leader-lost`, `stepped-down`, `lease`). */
  election: EmittedEvent[]
  /** What the nemesis did, and nodes that died on their own. */
  faults: FaultEvent[]
}

/** Every broken rule, in words; empty when the run was safe. */
export function globalViolations(input: CheckInput): string[] {
  const byTime = <T extends { t: number }>(list: readonly T[]) =>
    [...list].sort((a, b) => a.t - b.t)
  const lock = byTime(input.lock)
  const election = byTime(input.election)
  const faults = byTime(input.faults)
  return [
    ...mutexViolations(lock, faults),
    ...electionViolations(election, faults, input.nodes, minorityGraceMs(DEFAULT_TIMINGS)),
  ]
}

/**
 * The global checks of a trace document (`--trace FILE`, or one recorded for a test), after the
 * check of their premise: one time base for every node.
 */
export function judgeTrace(doc: TraceDocument): string[] {
  return [
    ...timeBaseViolations(doc.events),
    ...globalViolations({
      nodes: doc.nodes.map(String),
      lock: emitsOf(doc.events, 'lock'),
      election: emitsOf(doc.events, 'election'),
      faults: faultsOf(doc.events),
    }),
  ]
}

/** A delivery may be stamped this much before its send (the trace rounds times to 1 µs). */
const TIME_BASE_SLACK_MS = 0.01

/**
 * The checks above compare times stamped by different processes, so they hold only if every
 * process reads one clock. A message delivered before it was sent proves that premise broken:
 * the receiver's clock runs behind the sender's by at least that much. Reported once per link,
 * with the largest gap, since every overlap the checks find may then be the clocks' doing.
 */
export function timeBaseViolations(events: readonly TraceEvent[]): string[] {
  const worst = new Map<string, { gap: number; t: number }>()
  for (const e of events) {
    if (e.type !== 'deliver' || e.t >= e.sentAt - TIME_BASE_SLACK_MS) continue
    const link = `${String(e.from)} -> ${String(e.to)}`
    const gap = e.sentAt - e.t
    if (gap > (worst.get(link)?.gap ?? 0)) worst.set(link, { gap, t: e.t })
  }
  return [...worst].map(
    ([link, w]) =>
      `time base: ${link} delivered a message ${w.gap.toFixed(3)} ms before it was sent (t=${w.t}): the nodes' clocks disagree, so no timing check of this run can be trusted`,
  )
}

function mutexViolations(lock: EmittedEvent[], faults: FaultEvent[]): string[] {
  return checkMutualExclusion(lock, faults).violations.map((v) => `lock: ${tokensNamed(v)}`)
}

function electionViolations(
  election: EmittedEvent[],
  faults: FaultEvent[],
  members: string[],
  graceMs: number,
): string[] {
  return checkElection(election, faults, { members, minorityGraceMs: graceMs }).violations.map(
    (v) => `election: ${describeElection(v)}`,
  )
}

/** A token (term x 2^32 + grant number: 10 digits or more, a whole number) reads `T2#1`. */
const tokensNamed = (text: string) =>
  text.replace(/(?<![\d.])\d{10,}(?![\d.])/g, (n) => formatToken(Number(n)))

function describeElection(v: ElectionViolation): string {
  switch (v.kind) {
    case 'two-leaders-in-term':
      return `t=${v.t}: two leaders in term ${v.term}: ${v.leaders.join(' and ')}`
    case 'term-went-back':
      return `t=${v.t}: term went back at ${String(v.node)}: from ${v.from} to ${v.to}`
    case 'two-leaders-at-once':
      return `t=${v.from}..${v.to}: two leaders at once: ${v.leaders[0]} (term ${v.terms[0]}) and ${v.leaders[1]} (term ${v.terms[1]})`
    case 'leader-in-minority':
      return `t=${v.t}: ${String(v.node)} led term ${v.term} on a minority side since t=${v.since} (it could reach ${v.reachable.join(', ')})`
    default:
      return JSON.stringify(v)
  }
}
