/**
 * Runs an election protocol of @sd/election in the simulator under a plan (crashes, restarts,
 * who starts when), and reports what the texts look at: who leads, in which term, whether every
 * live node agrees, and the messages by type. Violations come from the trace alone.
 */
import { agreedLeader, checkElection, type ElectionRequest } from '@sd/election'
import { type NodeId, type ProtocolFactory, SimNetwork, type TraceEvent } from '@sd/transport'
import type { ScenarioRun } from '../../scenario.js'

/** Every message takes this long: delays read in message delays. */
export const LATENCY = 1

export interface ElectionPlan {
  ids: NodeId[]
  /** Crashes, restarts and requests, planned on the network before it runs. */
  plan?: (net: SimNetwork) => void
  /** Virtual time to stop at (heartbeats never let the network go quiet); default: when quiet. */
  until?: number
}

export function runElectionPlan<Msg, Ev>(
  factory: ProtocolFactory<Msg, ElectionRequest, Ev>,
  plan: ElectionPlan,
  seed: number,
): ScenarioRun {
  const net = new SimNetwork({ seed, latency: LATENCY })
  const events: Array<{ node: NodeId; t: number; event: unknown }> = []
  net.onEmit((node, event, t) => events.push({ node, t, event }))
  net.launch(plan.ids, factory)
  plan.plan?.(net)
  if (plan.until === undefined) net.run()
  else net.run({ until: plan.until })
  const verdict = checkElection(events)
  const live = plan.ids.filter((id) => !net.isCrashed(id))
  const agreed = agreedLeader(verdict, live)
  // Every (leader, term) announced, in the order of its first announcement.
  const history: Array<{ leader: NodeId; term: number }> = []
  for (const { event } of events) {
    const e = event as { type?: string; leader?: NodeId; term?: number }
    if (e.type !== 'leader') continue
    if (!history.some((h) => h.leader === e.leader && h.term === e.term)) {
      history.push({ leader: e.leader as NodeId, term: e.term as number })
    }
  }
  const messages: Record<string, number> = {}
  for (const entry of net.trace) {
    if (entry.type !== 'send') continue
    const kind = String((entry.msg as { type?: unknown } | undefined)?.type ?? 'other')
    messages[kind] = (messages[kind] ?? 0) + 1
  }
  const violations = verdict.violations.map((v) =>
    v.kind === 'two-leaders-in-term'
      ? `two leaders in term ${v.term}: ${v.leaders.map(String).join(' and ')} (t=${v.t})`
      : `term went back at ${String(v.node)}: ${v.from} then ${v.to} (t=${v.t})`,
  )
  // With every node down there is nobody to disagree: agreement holds vacuously, with no leader.
  const everyoneDown = live.length === 0
  if (agreed === undefined && !everyoneDown)
    violations.push('the live nodes do not agree on one leader at the end')
  return {
    net,
    annotate: describeElectionEvent,
    violations,
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

/** Words for the diagram: what an election event means, before its raw JSON. */
export function describeElectionEvent(entry: TraceEvent): string | undefined {
  if (entry.type !== 'emit') return undefined
  const e = entry.event as Record<string, unknown>
  switch (e.type) {
    case 'leader':
      return `follows ${String(e.leader)} (term ${String(e.term)})`
    case 'leader-lost':
      return `stops trusting the leader of term ${String(e.term)}`
    default:
      return undefined
  }
}
