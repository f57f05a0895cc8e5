/**
 * Runs a mutual exclusion protocol in the simulator under a workload (who asks when, and how long
 * each holds), releasing on the protocol's own `acquired` events, and judges the run from the
 * trace with `checkMutualExclusion`.
 */
import type {
  LaunchedGroup,
  NodeId,
  ProtocolFactory,
  SimNetwork,
  SimNetworkOptions,
} from '@sd/transport'
import { ofType, runInSim } from '@sd/transport/testing'
import { checkMutualExclusion, type MutexVerdict, type TimedEvent } from '../../src/check.js'
import { DEFAULT_RESOURCE, type LockMode, type MutexRequest } from '../../src/contract.js'

export interface Ask {
  node: NodeId
  /** Virtual time of the acquire request. */
  at: number
  /** How long the node stays in the critical section once it entered. */
  hold: number
  resource?: string
  /** `'shared'` asks for a shared entry; absent, the acquire carries no mode (exclusive). */
  mode?: LockMode
}

export interface MutexRun<Ev = unknown> extends MutexVerdict {
  net: SimNetwork
  /** What the protocol emitted, typed by its event type. */
  events: TimedEvent<Ev>[]
  /** Acquire requests made, and granted (an `acquired` answered them). */
  asked: number
  granted: number
}

export interface RunOptions<Ev = unknown> {
  seed: number
  net?: Omit<SimNetworkOptions, 'seed'>
  /** Plans faults on the network before it runs (crashes, partitions, restarts...). */
  faults?: (net: SimNetwork, group: LaunchedGroup<MutexRequest, Ev>) => void
  /** Virtual time to run to; default: until nothing is left to happen. */
  until?: number
}

/** Every algorithm's events have a `type`; `acquired` names its resource (default when absent). */
type MutexLikeEvent = { type: string }

export function runMutex<Msg, Ev extends MutexLikeEvent>(
  ids: readonly NodeId[],
  factory: ProtocolFactory<Msg, MutexRequest, Ev>,
  asks: readonly Ask[],
  options: RunOptions<Ev>,
): MutexRun<Ev> {
  // Per node and resource, the holds of its requests not yet granted, in the order they were made.
  const pendingHolds = new Map<string, number[]>()
  const keyOf = (node: NodeId, resource: string) => `${String(node)}\u0000${resource}`
  let granted = 0
  // Set by the plan, before any acquire is asked: so before any `acquired` that answers one.
  let group: LaunchedGroup<MutexRequest, Ev> | undefined
  const { net, events } = runInSim(ids, factory, {
    seed: options.seed,
    net: options.net,
    until: options.until,
    onEmit: (node, event, t) => {
      if (event.type !== 'acquired') return
      const resource =
        'resource' in event && typeof event.resource === 'string'
          ? event.resource
          : DEFAULT_RESOURCE
      const hold = pendingHolds.get(keyOf(node, resource))?.shift()
      if (hold === undefined) return // granted without a pending ask: the checker sees it anyway
      granted++
      group?.request(node, { type: 'release', resource }, t + hold)
    },
    plan: (net, launched) => {
      group = launched
      for (const ask of [...asks].sort((a, b) => a.at - b.at)) {
        const resource = ask.resource ?? DEFAULT_RESOURCE
        net.at(ask.at, () => {
          if (net.isCrashed(ask.node)) return
          const key = keyOf(ask.node, resource)
          pendingHolds.set(key, [...(pendingHolds.get(key) ?? []), ask.hold])
          const mode = ask.mode === undefined ? {} : { mode: ask.mode }
          launched.request(ask.node, { type: 'acquire', resource, ...mode })
        })
      }
      options.faults?.(net, launched)
    },
  })
  const crashes = net.trace.flatMap((e) => (e.type === 'crash' ? [{ node: e.node, t: e.t }] : []))
  const verdict = checkMutualExclusion(events, crashes)
  return { ...verdict, net, events, asked: asks.length, granted }
}

/** A random workload: `count` asks spread over `spanMs`, holds of 1..maxHold ms. */
export function randomAsks(
  ids: readonly NodeId[],
  random: () => number,
  count: number,
  spanMs: number,
  maxHold = 5,
): Ask[] {
  return Array.from({ length: count }, () => ({
    node: ids[Math.floor(random() * ids.length)]!,
    at: Math.floor(random() * spanMs),
    hold: 1 + Math.floor(random() * maxHold),
  }))
}

/** A run's events of one type, narrowed to that member of the protocol's event union. */
export const eventsOf = <Ev extends { type: string }, T extends Ev['type']>(
  run: { events: TimedEvent<Ev>[] },
  type: T,
) => ofType(run.events, type)

/** The tokens of a run's events of one type, in emission order (`requested`, `acquired`...). */
export function tokensOf<Ev extends { type: string; token?: number }>(
  run: { events: TimedEvent<Ev>[] },
  type: Ev['type'],
): number[] {
  return run.events.flatMap(({ event }) =>
    event.type === type && event.token !== undefined ? [event.token] : [],
  )
}

/** Ids `p1` … `pn`. */
export const namedIds = (n: number): NodeId[] => Array.from({ length: n }, (_, i) => `p${i + 1}`)

/** Message delays of 1 to 20 ms, uniform: requests meet each other and holders. */
export const JITTER = { latency: { kind: 'uniform', min: 1, max: 20 } } as const
