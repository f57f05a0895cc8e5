/**
 * What a run comes to, computed from what the parent recorded (pure, so it is unit-tested): the
 * counter against the acknowledged increments, failover times, terms, fencing rejections, and
 * every safety rule checked from the events the nodes reported.
 *
 * Safety rules (any broken one is a violation), one module of summary/ each:
 * - global.ts: judged globally, on the merged events of every node against the nemesis's faults,
 *   with the simulator's checkers (checks.ts): no two valid leases overlapping in real time,
 *   fencing tokens strictly increasing in entry order across all nodes, one leader per term, terms
 *   never going back at a node, no leader on a minority side;
 * - tokens.ts: each coordinator grants increasing tokens (across its restarts too), and every
 *   token belongs to a term some leader was elected in (the term leads the token);
 * - register.ts: the counter equals the acknowledged increments exactly, no accepted write lost
 *   another, and the nodes' history agrees (every increment acknowledged to a node is in, nothing
 *   beyond the indeterminate writes);
 * - durable.ts: durable state survives: a restarted node finds in its file a term at least as
 *   high as the last it reported before it died.
 * leaders.ts finds the leaderships and failovers, format.ts puts the summary in words.
 */
import type { FaultEvent } from '@sd/transport'
import type { ChaosKind } from './args.js'
import { countHistory, type HistoryCounts, type Operation } from './history.js'
import type { StoreState } from './store.js'
import { restartChecks } from './summary/durable.js'
import { globalChecks } from './summary/global.js'
import { electedTermsOf, failoversOf, leadershipsOf, leadersOf } from './summary/leaders.js'
import {
  judgeHistories,
  linearizabilityViolations,
  type ModelVerdict,
} from './summary/linearizability.js'
import { registerViolations } from './summary/register.js'
import { lockRecoveryMs, tokenChecks } from './summary/tokens.js'

export interface NodeEvent {
  node: string
  t: number
  p: 'election' | 'lock' | 'sync'
  e: Record<string, unknown>
}

export interface FaultRecord {
  kind: ChaosKind
  /** When it was applied (machine ms); absent when skipped. */
  t?: number
  /** When it ended: the restart, the heal, the SIGCONT. */
  until?: number
  /** The nodes it hit. */
  targets: string[]
  /** For kill-holder and pause-holder: the token the victim held. */
  token?: number
  /** For clock-step: how far the wall clock jumped (it is stepped back at `until`). */
  deltaMs?: number
  /** Why it did not run. */
  skipped?: string
}

export interface BootRecord {
  node: string
  t: number
  /** What its state file held at boot. */
  stored: { term: number; boots: number; lockTerm: number }
}

export interface RunRecord {
  mode: 'netns' | 'loopback'
  nodes: string[]
  /** The workload's length as asked (s). */
  seconds: number
  /** When the workload started and ended (machine ms). */
  startedAt: number
  endedAt: number
  /** The time origin of the run (machine ms): the checkers and the trace count from it. */
  origin: number
  /** In the order each node reported them (per node, the order they happened). */
  events: NodeEvent[]
  faults: FaultRecord[]
  /**
   * Every fault as the checkers take it (machine ms): kills and deaths (`crash`), restarts,
   * SIGSTOP / SIGCONT (`pause` / `resume`), partitions and heals, wall clock steps.
   */
  faultEvents: FaultEvent[]
  /** Every operation of the workload, with invocation and completion times. */
  history: Operation[]
  boots: BootRecord[]
  /** The counter file as read back at the end, and the store's own findings. */
  store: StoreState
  anomalies: string[]
  /** Totals over every incarnation of every node. */
  messages: {
    sent: number
    delivered: number
    retransmissions: number
    /** Resent to a restarted peer's new incarnation, which may deliver what the old one had. */
    resent: number
    dropped: number
  }
  /** Packets the fault rules dropped (namespace mode). */
  nftDrops: { cut: number; loss: number }
  /**
   * Largest minus smallest clock (ms): of the nodes' hardware clocks (their skews), and of their
   * software clocks at the end, after Berkeley's corrections.
   */
  clockSpreadMs: { start: number | undefined; end: number | undefined }
  /** Nodes that failed on their own (a protocol error, an unexpected exit). */
  errors: string[]
  /**
   * With --trace: the check that every process stamped times on one clock (`timeBaseViolations`
   * of checks.ts), which the global checks rest on. Reported first.
   */
  timeBase?: string[]
  /** The run was interrupted by this signal at `endedAt`: the record is of what ran until then. */
  interrupted?: string
}

export interface Failover {
  cause: ChaosKind
  /** On the run's clock (ms since its origin, as every `atMs`). */
  atMs: number
  from: string
  fromTerm: number
  to: string | undefined
  toTerm: number | undefined
  /** Until a majority followed a new leader in a higher term; null if that never happened. */
  ms: number | null
}

export interface Summary {
  ok: boolean
  mode: 'netns' | 'loopback'
  nodes: number
  seconds: number
  /**
   * When the workload started, on the run's clock: every `atMs` is ms since the run's origin
   * (t = 0 of the trace and of the run's log, just before the nodes were started).
   */
  workloadStartMs: number
  counter: number
  acknowledged: number
  fencingRejections: number
  /** Terms in which a leader was elected. */
  terms: number
  maxTerm: number
  leaders: Array<{ term: number; leader: string; atMs: number }>
  /** One entry per failover whose new leader was found. */
  failoverMs: number[]
  failovers: Failover[]
  /** After a holder was killed or paused: until another node entered with a newer token (ms). */
  lockRecoveryMs: number[]
  /** Critical sections entered. */
  entries: number
  /** The workload's operations as the nodes saw them (history.ts). */
  operations: HistoryCounts
  /**
   * The history judged for linearizability, per model (`register`, `lock`), with the minimal
   * failing sub-history of a model that fails (summary/linearizability.ts).
   */
  linearizability: ModelVerdict[]
  chaos: Array<{
    kind: ChaosKind
    atMs?: number
    durationMs?: number
    targets: string[]
    deltaMs?: number
    skipped?: string
  }>
  restarts: Array<{ node: string; atMs: number; storedTerm: number; termBefore: number }>
  messages: RunRecord['messages']
  nftDrops: RunRecord['nftDrops']
  clockSpreadMs: RunRecord['clockSpreadMs']
  violations: string[]
  errors: string[]
  /**
   * Present when the run was interrupted (Ctrl-C): the summary is of what ran until `atMs`, the
   * checks judged that much; the workload was not stopped (operations under way stay
   * indeterminate) and the messages in flight are not counted.
   */
  partial?: { signal: string; atMs: number }
}

export function summarize(run: RunRecord): Summary {
  const n = run.nodes.length
  // The run's clock (the log's and the trace's): ms since the origin.
  const rel = (t: number) => Math.round(t - run.origin)
  const electedTerms = electedTermsOf(run.events)
  const leaderships = leadershipsOf(run.events, n)
  const failovers = failoversOf(run, leaderships, rel)
  const tokens = tokenChecks(run, electedTerms)
  const durable = restartChecks(run, rel)
  const linearizability = judgeHistories(run.history, run.origin)
  // In the order the checks were always reported: global, tokens, register, durable state (after
  // the time base, which the global checks rest on).
  const violations = [
    ...(run.timeBase ?? []),
    ...globalChecks(run),
    ...tokens.violations,
    ...registerViolations(run),
    ...durable.violations,
    ...linearizabilityViolations(linearizability),
  ]
  const ok = violations.length === 0 && run.errors.length === 0
  return {
    ok,
    mode: run.mode,
    nodes: n,
    seconds: run.seconds,
    workloadStartMs: rel(run.startedAt),
    counter: run.store.counter,
    acknowledged: run.store.acknowledged,
    fencingRejections: run.store.fencingRejections,
    terms: electedTerms.size,
    maxTerm: Math.max(0, ...electedTerms),
    leaders: leadersOf(run.events, leaderships, rel),
    failoverMs: failovers.flatMap((f) => (f.ms === null ? [] : [f.ms])),
    failovers,
    lockRecoveryMs: lockRecoveryMs(run),
    entries: tokens.entries,
    operations: countHistory(run.history),
    linearizability,
    chaos: run.faults.map((f) => ({
      kind: f.kind,
      ...(f.t === undefined ? {} : { atMs: rel(f.t) }),
      ...(f.t !== undefined && f.until !== undefined
        ? { durationMs: Math.round(f.until - f.t) }
        : {}),
      targets: f.targets,
      ...(f.deltaMs === undefined ? {} : { deltaMs: f.deltaMs }),
      ...(f.skipped === undefined ? {} : { skipped: f.skipped }),
    })),
    restarts: durable.restarts,
    messages: run.messages,
    nftDrops: run.nftDrops,
    clockSpreadMs: run.clockSpreadMs,
    violations,
    errors: run.errors,
    ...(run.interrupted === undefined
      ? {}
      : { partial: { signal: run.interrupted, atMs: rel(run.endedAt) } }),
  }
}
