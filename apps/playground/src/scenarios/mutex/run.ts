/**
 * Runs a mutual exclusion protocol of @sd/mutex under a workload in the simulator, releasing
 * `hold` ms after each entry, and measures what the texts measure: messages per entry, client
 * delay and synchronization delay, in message delays (every message takes LATENCY ms here).
 */
import { checkMutualExclusion, type MutexRequest } from '@sd/mutex'
import {
  faultsOf,
  isRecord,
  type NodeId,
  type ProtocolFactory,
  SimNetwork,
  type TimedEvent,
  type TraceEvent,
} from '@sd/transport'
import { faultsEnd, type PlannedFault, planFaults } from '../../fault-plan.js'
import type { Liveness, ScenarioRun, Unfinished } from '../../scenario.js'
import { keepSideState } from '../../side-state.js'
import { mutexPlanState } from './plan-state.js'

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
  /**
   * With `until`: how much longer the run may go on while requests are still open, to give the
   * protocol's own timeouts (a lost token's regeneration, an expired lease) time to act. The run
   * stops as soon as every request it owes is served. Default 0.
   */
  patienceMs?: number
  /** `--pause` / `--clock-step`; a run with `until` lasts at least SETTLE_MS past the last one. */
  planned?: readonly PlannedFault[]
  /**
   * Algorithms that wait for ever on a crashed member (Ricart-Agrawala, Lamport, Maekawa): why
   * `node`'s request waits, given the nodes down, or undefined if the crash does not explain it.
   * Such a request is reported as left undone by design, not as a liveness failure.
   */
  blockedBy?: (node: NodeId, down: readonly NodeId[]) => string | undefined
}

/** After the last planned fault, time for the protocol to serve what waited. */
export const SETTLE_MS = 100
/** The run goes on by steps of this much virtual time while it waits for open requests. */
const PATIENCE_STEP_MS = 10

/** A request the run made: served when an `acquired` of its node answered it. */
export interface Asked extends Ask {
  servedAt?: number
}

export interface Entry {
  node: NodeId
  askedAt: number
  enteredAt: number
  releasedAt: number | undefined
}

export function runMutexPlan<Msg, Ev extends { type: string }>(
  factory: ProtocolFactory<Msg, MutexRequest, Ev>,
  plan: MutexPlan,
  seed: number,
): ScenarioRun & { entries: Entry[] } {
  const net = new SimNetwork({ seed, latency: LATENCY })
  const waiting = new Map<NodeId, Asked[]>()
  const asked: Asked[] = []
  const events: TimedEvent<Ev>[] = []
  const entries: Entry[] = []
  const open = new Map<NodeId, Entry>()
  const onEmit = (node: NodeId, event: Ev, t: number) => {
    events.push({ node, t, event })
    const { type } = event
    if (type === 'acquired') {
      // A request made before the node's last crash died with it: this entry answers a later one.
      const crashedAt = lastCrash(net.trace, node)
      const queue = (waiting.get(node) ?? []).filter((a) => a.at >= crashedAt)
      const ask = queue.shift()
      waiting.set(node, queue)
      if (ask) ask.servedAt = t
      const entry = { node, askedAt: ask?.at ?? t, enteredAt: t, releasedAt: undefined }
      entries.push(entry)
      open.set(node, entry)
      if (ask) net.request<MutexRequest>(node, { type: 'release' }, t + ask.hold)
    } else if (type === 'released') {
      const entry = open.get(node)
      if (entry) entry.releasedAt = t
      open.delete(node)
    }
  }
  net.launch(plan.ids, factory, { onEmit })
  keepSideState(net, mutexPlanState({ asked, waiting, entries, open, events }))
  for (const ask of plan.asks) {
    net.at(ask.at, () => {
      if (net.isCrashed(ask.node)) return
      const made: Asked = { ...ask }
      asked.push(made)
      waiting.set(ask.node, [...(waiting.get(ask.node) ?? []), made])
      net.request<MutexRequest>(ask.node, { type: 'acquire' })
    })
  }
  plan.faults?.(net)
  const planned = plan.planned ?? []
  planFaults(net, planned)
  const openAsks = () => asked.filter((a) => a.servedAt === undefined && !diedWith(net, a)).length
  if (plan.until === undefined) net.run()
  else {
    const until = planned.length ? Math.max(plan.until, faultsEnd(planned) + SETTLE_MS) : plan.until
    net.run({ until })
    const deadline = until + (plan.patienceMs ?? 0)
    while (openAsks() > 0 && net.now < deadline)
      net.run({ until: Math.min(deadline, net.now + PATIENCE_STEP_MS) })
  }
  // Judged across all nodes with the run's faults: a crash ends a holding, and so does the pause
  // of a leased holder (it cannot know its lease ran out).
  const verdict = checkMutualExclusion(events, faultsOf(net.trace))
  const sent = net.stats.sent
  return {
    net,
    entries,
    annotate: describeMutexEvent,
    summary: [entryOrderLine(events)],
    violations: verdict.violations,
    liveness: mutexLiveness(net, asked, plan),
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

/**
 * Every request of a node that stays up must be served. A request whose node crashed after
 * making it died with the node (not owed). One left waiting is expected only when the algorithm
 * blocks on a crashed member by design (`blockedBy`); otherwise it fails the run.
 */
function mutexLiveness(net: SimNetwork, asked: readonly Asked[], plan: MutexPlan): Liveness {
  const down = crashedNodes(net)
  const quiet = net.pending === 0
  const unfinished: Unfinished[] = []
  for (const a of asked) {
    if (a.servedAt !== undefined || diedWith(net, a)) continue
    const blocked = down.length > 0 ? plan.blockedBy?.(a.node, down) : undefined
    unfinished.push({
      node: a.node,
      what: `request of node ${String(a.node)} at t=${a.at} ms`,
      why:
        blocked ??
        (quiet
          ? `never served: the run went quiet at t=${net.now} ms with it still waiting${down.length ? ` (nodes down: ${down.map(String).join(', ')})` : ''}`
          : `not served by t=${net.now} ms, when the run stopped (${plan.patienceMs ?? 0} ms of patience past its planned end, beyond the protocol's own timeouts)`),
      expected: blocked !== undefined,
    })
  }
  return { property: 'every request of a node that stays up is served', unfinished }
}

/** Whether the node that made `a` crashed after making it (the request died with it). */
function diedWith(net: SimNetwork, a: Ask): boolean {
  return net.trace.some((e) => e.type === 'crash' && e.node === a.node && e.t >= a.at)
}

/** The nodes that crashed during the run (down at some point), ascending. */
function crashedNodes(net: SimNetwork): NodeId[] {
  const ids = new Set<NodeId>()
  for (const e of net.trace) if (e.type === 'crash') ids.add(e.node)
  return [...ids].sort((a, b) => Number(a) - Number(b))
}

/** The time of `node`'s last crash so far, or -Infinity. */
function lastCrash(trace: readonly TraceEvent[], node: NodeId): number {
  for (let i = trace.length - 1; i >= 0; i--) {
    const e = trace[i]!
    if (e.type === 'crash' && e.node === node) return e.t
  }
  return Number.NEGATIVE_INFINITY
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

/** The outcome in words: who entered, in which order, with which token. */
export function entryOrderLine(events: ReadonlyArray<TimedEvent<{ type: string }>>): string {
  const entered = events.flatMap(({ node, t, event }) => {
    if (event.type !== 'acquired') return []
    const token =
      'token' in event && typeof event.token === 'number' ? ` (token ${event.token})` : ''
    return [`${String(node)}${token} at t=${t}`]
  })
  if (entered.length === 0) return 'outcome: nobody entered the critical section'
  return `outcome: ${entered.length} ${entered.length === 1 ? 'entry' : 'entries'}, in order: ${entered.join(', ')}`
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((s, v) => s + v, 0) / values.length
}

function round(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 100) / 100 : null
}

/** Words for the diagram: what a mutual exclusion event means, before its raw JSON. */
export function describeMutexEvent(entry: TraceEvent): string | undefined {
  if (entry.type !== 'emit' || !isRecord(entry.event)) return undefined
  const e = entry.event
  switch (e.type) {
    case 'acquired':
      return `enters (token ${String(e.token)}${typeof e.leaseMs === 'number' ? `, lease ${e.leaseMs} ms` : ''})`
    case 'released':
      return 'leaves'
    // Timestamp algorithms emit it at the asking node with its Lamport time; the centralized
    // coordinator emits it when it queues a request, naming the node that asked.
    case 'requested':
      return typeof e.time === 'number' ? `asks at T=${e.time}` : `queues ${String(e.node)}`
    case 'granted':
      return `grants to ${String(e.node)} (token ${String(e.token)})`
    case 'lease-renewed':
      return `lease renewed (valid ${String(e.validForMs)} ms)`
    case 'grant-late':
      return `grant came after its lease (token ${String(e.token)}): asks again`
    case 'coordinator-stopped':
      return `stops coordinating term ${String(e.term)}`
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
