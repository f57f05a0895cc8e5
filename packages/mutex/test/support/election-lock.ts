import { majorityElection } from '@sd/election'
import {
  compose,
  type EmitListener,
  type EventOf,
  emitsOf,
  type FaultEvent,
  faultsOf,
  type NodeId,
  SimNetwork,
  type SimNetworkOptions,
  type Unsubscribe,
} from '@sd/transport'
import {
  type CentralizedEvent,
  type CentralizedOptions,
  centralized,
} from '../../src/centralized/index.js'
import { electionToLock } from '../../src/centralized/wiring.js'
import { checkMutualExclusion, type MutexVerdict, type TimedEvent } from '../../src/check.js'

/** Election timings of the composition tests: a leader is suspected after 100 ms of silence. */
export const HEARTBEAT = { intervalMs: 20, timeoutMs: 100 }

/**
 * How the lock hears of the election: `'lease'` is `electionToLock` with `leaderLease` (the fix);
 * `'leader-only'` is the wiring the cluster had before, only `leader` → `coordinator`.
 */
export type WiringKind = 'lease' | 'leader-only'

/** One node: the majority election and the centralized lock, wired. */
export function electionLock(lock: CentralizedOptions, wiring: WiringKind = 'lease') {
  return (self: NodeId) =>
    compose(
      {
        lock: centralized({ ...lock, leaderLease: wiring === 'lease' })(self),
        // Last, so that whatever it emits finds the lock started.
        election: majorityElection({ heartbeat: HEARTBEAT })(self),
      },
      {
        wiring: [
          {
            from: 'election',
            to: 'lock',
            map:
              wiring === 'lease'
                ? electionToLock
                : (e) =>
                    e.type === 'leader'
                      ? { type: 'coordinator', id: e.leader, term: e.term }
                      : undefined,
          },
        ],
      },
    )
}

/** What a node of `electionLock` emits: `{ proto: 'lock', event }`, `{ proto: 'election', event }`... */
export type ElectionLockEvent = EventOf<ReturnType<ReturnType<typeof electionLock>>>

export interface ComposedRun {
  net: SimNetwork
  lock: TimedEvent<CentralizedEvent>[]
  faults: FaultEvent[]
  verdict: MutexVerdict
  acquire(id: NodeId, at: number): void
  release(id: NodeId, at: number): void
  /** Listens to the nodes' events, typed (`{ proto: 'lock', event }`...), from now on. */
  onEmit(listener: EmitListener<ElectionLockEvent>): Unsubscribe
}

/** Launches `ids`, lets `plan` schedule asks and faults, runs until `until`, judges the run. */
export function runComposed(
  ids: readonly NodeId[],
  lock: CentralizedOptions,
  plan: (run: Omit<ComposedRun, 'lock' | 'faults' | 'verdict'>) => void,
  options: {
    until: number
    /** Computed after `plan` ran (when the plan decides how long the run is); wins over `until`. */
    untilFrom?: () => number
    wiring?: WiringKind
    net?: SimNetworkOptions
  },
): ComposedRun {
  const net = new SimNetwork({ seed: 1, latency: 2, ...options.net })
  const group = net.launch(ids, electionLock(lock, options.wiring))
  const acquire = (id: NodeId, at: number) =>
    group.request(id, { proto: 'lock', req: { type: 'acquire' } }, at)
  const release = (id: NodeId, at: number) =>
    group.request(id, { proto: 'lock', req: { type: 'release' } }, at)
  const onEmit = (listener: EmitListener<ElectionLockEvent>) => group.onEmit(listener)
  plan({ net, acquire, release, onEmit })
  net.run({ until: options.untilFrom?.() ?? options.until })
  const lockEvents = emitsOf<CentralizedEvent>(net.trace, 'lock')
  const faults = faultsOf(net.trace)
  return {
    net,
    lock: lockEvents,
    faults,
    verdict: checkMutualExclusion(lockEvents, faults),
    acquire,
    release,
    onEmit,
  }
}

/** `[node, t, type, ...]` rows of the lock events of the given types, for messages and asserts. */
export function rows(
  events: readonly TimedEvent<CentralizedEvent>[],
  ...types: CentralizedEvent['type'][]
) {
  return events
    .filter((e) => types.includes(e.event.type))
    .map((e) => {
      const { type, ...rest } = e.event
      return [e.node, e.t, type, JSON.stringify(rest)]
    })
}
