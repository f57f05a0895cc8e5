/**
 * Runs an election protocol of @sd/election in the simulator under a plan (crashes, restarts,
 * who starts when), and reports what the texts look at: who leads, in which term, whether every
 * live node agrees, and the messages by type. Violations come from the trace alone.
 */
import {
  agreedLeader,
  checkElection,
  type ElectionRequest,
  type ElectionViolation,
} from '@sd/election'
import {
  isFiniteNumber,
  isNodeId,
  isRecord,
  type NodeId,
  oneOf,
  type ProtocolFactory,
  SimNetwork,
  shape,
  type TimedEvent,
  type TraceEvent,
} from '@sd/transport'
import { faultsEnd, type PlannedFault, planFaults } from '../../fault-plan.js'
import type { ScenarioRun, Unfinished } from '../../scenario.js'
import { appendOnly, keepSideState } from '../../side-state.js'

/** Every message takes this long: delays read in message delays. */
export const LATENCY = 1

export interface ElectionPlan {
  ids: NodeId[]
  /** Crashes, restarts and requests, planned on the network before it runs. */
  plan?: (net: SimNetwork) => void
  /** Virtual time to stop at (heartbeats never let the network go quiet); default: when quiet. */
  until?: number
  /** `--pause` / `--clock-step`; a run with `until` goes on until SETTLE_MS after the last one. */
  faults?: readonly PlannedFault[]
}

/** Emitted events are the protocol's own type, unknown here: a `leader` event is read by its shape. */
const isLeaderEvent = shape({ type: oneOf('leader'), leader: isNodeId, term: isFiniteNumber })

/** After the last planned fault, time for the nodes to agree again (a few detection timeouts). */
export const SETTLE_MS = 200

export function runElectionPlan<Msg, Ev>(
  factory: ProtocolFactory<Msg, ElectionRequest, Ev>,
  plan: ElectionPlan,
  seed: number,
): ScenarioRun {
  const net = new SimNetwork({ seed, latency: LATENCY })
  const events: TimedEvent<Ev>[] = []
  net.launch(plan.ids, factory, { onEmit: (node, event, t) => events.push({ node, t, event }) })
  // The events only grow; the plan's callbacks read none of them.
  keepSideState(net, appendOnly([events]))
  plan.plan?.(net)
  const faults = plan.faults ?? []
  planFaults(net, faults)
  const until =
    plan.until === undefined || faults.length === 0
      ? plan.until
      : Math.max(plan.until, faultsEnd(faults) + SETTLE_MS)
  if (until === undefined) net.run()
  else net.run({ until })
  // The per-term rules only. These elections hold no lease: a deposed leader learns of its
  // successor a message later (bully's 6 leads term 15 until 7's COORDINATOR of term 16 arrives),
  // so "never two leaders at once", which checkElection judges given the faults, is not theirs.
  const verdict = checkElection(events)
  const live = plan.ids.filter((id) => !net.isCrashed(id))
  const agreed = agreedLeader(verdict, live)
  // Every (leader, term) announced, in the order of its first announcement.
  const history: Array<{ leader: NodeId; term: number }> = []
  for (const { event } of events) {
    if (!isLeaderEvent(event)) continue
    if (!history.some((h) => h.leader === event.leader && h.term === event.term)) {
      history.push({ leader: event.leader, term: event.term })
    }
  }
  const messages: Record<string, number> = {}
  for (const entry of net.trace) {
    if (entry.type !== 'send') continue
    const kind = String((isRecord(entry.msg) ? entry.msg.type : undefined) ?? 'other')
    messages[kind] = (messages[kind] ?? 0) + 1
  }
  const violations = verdict.violations.map(describeViolation)
  // With every node down there is nobody to disagree: agreement holds vacuously, with no leader.
  const everyoneDown = live.length === 0
  const unfinished: Unfinished[] = []
  if (agreed === undefined && !everyoneDown)
    unfinished.push({
      what: 'agreement on one leader among the live nodes',
      why: `at t=${net.now} ms ${views(verdict.final, live)}`,
      expected: false,
    })
  return {
    net,
    annotate: describeElectionEvent,
    summary: [outcomeLine(agreed, live, history, verdict.final)],
    violations,
    liveness: {
      property: 'the election ends with every live node following the same leader in the same term',
      unfinished,
    },
    result: {
      leader: agreed?.leader ?? null,
      term: agreed?.term ?? null,
      agreed: agreed !== undefined || everyoneDown,
      history,
      live,
      messages,
    },
  }
}

/** The outcome in words: who leads in which term, and the leaders the run went through. */
function outcomeLine(
  agreed: { leader: NodeId; term: number } | undefined,
  live: readonly NodeId[],
  history: ReadonlyArray<{ leader: NodeId; term: number }>,
  final: ReadonlyMap<NodeId, { leader: NodeId; term: number } | undefined>,
): string {
  const before = history.filter((h) => h.leader !== agreed?.leader || h.term !== agreed?.term)
  const earlier = before.length
    ? `; before: ${before.map((h) => `${String(h.leader)} (term ${h.term})`).join(', ')}`
    : ''
  if (live.length === 0) return `outcome: every node is down, nobody leads${earlier}`
  if (agreed === undefined) return `outcome: no agreed leader: ${views(final, live)}${earlier}`
  return `outcome: ${String(agreed.leader)} leads in term ${agreed.term}, followed by every live node (${live.map(String).join(', ')})${earlier}`
}

/** What each live node follows at the end: `0 follows 6 (term 2), 1 follows nobody`. */
function views(
  final: ReadonlyMap<NodeId, { leader: NodeId; term: number } | undefined>,
  live: readonly NodeId[],
): string {
  return live
    .map((id) => {
      const view = final.get(id)
      return `${String(id)} follows ${view ? `${String(view.leader)} (term ${view.term})` : 'nobody'}`
    })
    .join(', ')
}

/** A violation of the election checker in words; the other kinds are printed as data. */
function describeViolation(v: ElectionViolation): string {
  switch (v.kind) {
    case 'two-leaders-in-term':
      return `two leaders in term ${v.term}: ${v.leaders.map(String).join(' and ')} (t=${v.t})`
    case 'term-went-back':
      return `term went back at ${String(v.node)}: ${v.from} then ${v.to} (t=${v.t})`
    default:
      return `${v.kind}: ${JSON.stringify(v)}`
  }
}

/** Words for the diagram: what an election event means, before its raw JSON. */
export function describeElectionEvent(entry: TraceEvent): string | undefined {
  if (entry.type !== 'emit' || !isRecord(entry.event)) return undefined
  const e = entry.event
  switch (e.type) {
    case 'leader':
      return `follows ${String(e.leader)} (term ${String(e.term)})`
    case 'leader-lost':
      return `stops trusting the leader of term ${String(e.term)}`
    default:
      return undefined
  }
}
