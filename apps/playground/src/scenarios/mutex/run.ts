/**
 * Runs a mutual exclusion protocol of @sd/mutex under a workload in the simulator, releasing
 * `hold` ms after each entry, and measures what the texts measure: messages per entry, client
 * delay and synchronization delay, in message delays (every message takes LATENCY ms here).
 */
import { checkMutualExclusion, type MutexRequest } from '@sd/mutex'
import { type NodeId, type ProtocolFactory, SimNetwork, type TraceEvent } from '@sd/transport'
import type { ScenarioRun } from '../../scenario.js'

/** Every message takes this long, so delays divide into message delays exactly. */
export const LATENCY = 1

export interface Ask {
  node: NodeId
  at: number
  hold: number
}

export interface MutexPlan {
  ids: NodeId[]
  asks: Ask[]
  /** Faults and extra steps on the network before it runs. */
  faults?: (net: SimNetwork) => void
  /** Node ids whose crash the plan makes, reported. */
  crash?: NodeId[]
  /** Virtual time to stop at (protocols with periodic timers never go quiet). */
  until?: number
}

interface Entry {
  node: NodeId
  askedAt: number
  enteredAt: number
  releasedAt: number | undefined
}

export function runMutexPlan<Msg, Ev>(
  factory: ProtocolFactory<Msg, MutexRequest, Ev>,
  plan: MutexPlan,
  seed: number,
): ScenarioRun & { entries: Entry[] } {
  const net = new SimNetwork({ seed, latency: LATENCY })
  const waiting = new Map<NodeId, Ask[]>()
  const events: Array<{ node: NodeId; t: number; event: unknown }> = []
  const entries: Entry[] = []
  const open = new Map<NodeId, Entry>()
  net.onEmit((node, event, t) => {
    events.push({ node, t, event })
    const type = (event as { type?: string }).type
    if (type === 'acquired') {
      const ask = waiting.get(node)?.shift()
      const entry = { node, askedAt: ask?.at ?? t, enteredAt: t, releasedAt: undefined }
      entries.push(entry)
      open.set(node, entry)
      if (ask) net.request<MutexRequest>(node, { type: 'release' }, t + ask.hold)
    } else if (type === 'released') {
      const entry = open.get(node)
      if (entry) entry.releasedAt = t
      open.delete(node)
    }
  })
  net.launch(plan.ids, factory)
  for (const ask of plan.asks) {
    net.at(ask.at, () => {
      if (net.isCrashed(ask.node)) return
      waiting.set(ask.node, [...(waiting.get(ask.node) ?? []), ask])
      net.request<MutexRequest>(ask.node, { type: 'acquire' })
    })
  }
  plan.faults?.(net)
  if (plan.until === undefined) net.run()
  else net.run({ until: plan.until })
  const crashes = net.trace
    .filter((e) => e.type === 'crash')
    .map((e) => ({ node: (e as { node: NodeId }).node, t: e.t }))
  const verdict = checkMutualExclusion(events, crashes)
  const sent = net.stats.sent
  return {
    net,
    entries,
    annotate: describeMutexEvent,
    violations: verdict.violations,
    result: {
      order: verdict.order.default ?? [],
      entries: verdict.entries,
      asked: plan.asks.length,
      messagesPerEntry: round(verdict.entries > 0 ? sent / verdict.entries : 0),
      clientDelay: round(mean(clientDelays(entries)) / LATENCY),
      syncDelay: round(mean(syncDelays(entries)) / LATENCY),
    },
  }
}

/** Request to entry, for entries whose node found the resource free (nobody inside meanwhile). */
function clientDelays(entries: readonly Entry[]): number[] {
  return entries
    .filter((e) =>
      entries.every(
        (o) =>
          o === e ||
          o.enteredAt >= e.enteredAt ||
          (o.releasedAt !== undefined && o.releasedAt <= e.askedAt),
      ),
    )
    .map((e) => e.enteredAt - e.askedAt)
}

/** Release to the next entry, when the next node was already waiting at the release. */
function syncDelays(entries: readonly Entry[]): number[] {
  const out: number[] = []
  const sorted = [...entries].sort((a, b) => a.enteredAt - b.enteredAt)
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!
    const next = sorted[i]!
    // A hand-over: the next was waiting when the previous left, and entered after it (an
    // overlap is a violation, not a delay).
    const handOver =
      previous.releasedAt !== undefined &&
      next.askedAt < previous.releasedAt &&
      next.enteredAt >= previous.releasedAt
    if (handOver) {
      out.push(next.enteredAt - previous.releasedAt!)
    }
  }
  return out
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((s, v) => s + v, 0) / values.length
}

function round(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 100) / 100 : null
}

/** Words for the diagram: what a mutual exclusion event means, before its raw JSON. */
export function describeMutexEvent(entry: TraceEvent): string | undefined {
  if (entry.type !== 'emit') return undefined
  const e = entry.event as Record<string, unknown>
  switch (e.type) {
    case 'acquired':
      return `enters (token ${String(e.token)})`
    case 'released':
      return 'leaves'
    case 'requested':
      return `asks at T=${String(e.time)}`
    case 'deferred':
      return `defers its answer to ${String(e.to)}`
    case 'grants':
      return `has ${String(e.count)} of ${String(e.of)} grants`
    case 'backoff':
      return `backs off (attempt ${String(e.attempt)})`
    default:
      return undefined
  }
}
