/**
 * Check spec for the centralized lock led by the majority election (issue 19, finding 1): the
 * leader-coordinator is cut off alone while another node holds the lock and it waits for it.
 */
import { majorityElection } from '@sd/election'
import { centralized, checkMutualExclusion, electionToLock, type TimedEvent } from '@sd/mutex'
import {
  type Ctx,
  compose,
  type EventOf,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
} from '@sd/transport'
import type { ExploreScenario } from '@sd/transport/explore'
import type { CheckSpec } from './spec.js'

const HEARTBEAT = { intervalMs: 10, timeoutMs: 50 }
/** The lock's lease outlasts an election, so the holder keeps it with the next coordinator. */
const LEASE = { leaseMs: 200, maxDelayMs: 10 }
const CUT_AT = 100
const UNTIL_MS = 400

/**
 * How the lock hears the election: `electionToLock` with `leaderLease` (the fix), or only `leader`
 * wired and no leader lease (the cluster's wiring before issue 19), which the spec must catch.
 */
export type LockWiring = 'lease' | 'leader-only'

const nodeOf = (wiring: LockWiring) => (self: NodeId) =>
  compose(
    {
      lock: centralized({ ...LEASE, leaderLease: wiring === 'lease' })(self),
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

/** Emitted by `withDelays` when a lock message took longer than the lock's `maxDelayMs`. */
type Late = { type: 'late'; proto: string; delayMs: number }
/** A composed message (`{ proto, msg }`) with its send time beside (compose ignores the field). */
type Sent<Msg> = Msg & { sentAt?: number }

/**
 * Stamps every message with its send time (the simulator's wall clocks are not stepped here) and
 * emits `late` when a lock message arrives more than `maxDelayMs` after it left: the explorer may
 * hold a message while timers fire, and the lock's leases assume a bound on message delay.
 */
function withDelays<Msg extends object, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
): ProtocolFactory<Sent<Msg>, Req, Ev | Late> {
  return (self) => {
    const inner = factory(self)
    const wrap = (ctx: Ctx<Sent<Msg>, Ev | Late>): Ctx<Msg, Ev> => ({
      self: ctx.self,
      get peers() {
        return ctx.peers
      },
      now: () => ctx.now(),
      monotonic: () => ctx.monotonic(),
      send: (to, msg) => ctx.send(to, { ...msg, sentAt: ctx.now() }),
      broadcast: (msg) => ctx.broadcast({ ...msg, sentAt: ctx.now() }),
      setTimer: (key, ms) => ctx.setTimer(key, ms),
      cancelTimer: (key) => ctx.cancelTimer(key),
      random: () => ctx.random(),
      emit: (event) => ctx.emit(event),
      storage: ctx.storage,
    })
    const protocol: Protocol<Sent<Msg>, Req, Ev | Late> = {
      onMessage(from, msg, ctx) {
        const proto = 'proto' in msg ? msg.proto : undefined
        const delayMs = ctx.now() - (msg.sentAt ?? ctx.now())
        if (proto === 'lock' && delayMs > LEASE.maxDelayMs)
          ctx.emit({ type: 'late', proto, delayMs })
        inner.onMessage(from, msg, wrap(ctx))
      },
    }
    if (inner.start) protocol.start = (ctx) => inner.start!(wrap(ctx))
    if (inner.onTimer) protocol.onTimer = (key, ctx) => inner.onTimer!(key, wrap(ctx))
    if (inner.onRequest) protocol.onRequest = (req, ctx) => inner.onRequest!(req, wrap(ctx))
    // The wrapper keeps nothing between handlers (send times travel in the messages, which the
    // explorer's state holds): its state is the inner one's, and so is whether it restores.
    if (inner.snapshot) protocol.snapshot = () => inner.snapshot!()
    if (inner.snapshot && inner.restore) protocol.restore = (snapshot) => inner.restore!(snapshot)
    return protocol
  }
}

/** What a node emits: its children's events (`{ proto, event }`) and the wrapper's `late`. */
type NodeEvent = EventOf<ReturnType<ReturnType<typeof nodeOf>>> | Late
type Emitted = TimedEvent<NodeEvent>
const lockEvents = (events: readonly Emitted[]) =>
  events.flatMap((e) =>
    'event' in e.event && e.event.proto === 'lock'
      ? [{ node: e.node, t: e.t, event: e.event.event }]
      : [],
  )
/** An event of the node's wrapper (`late`) or of one of its children (`{ proto, event }`). */
const isType = (e: Emitted, type: string) =>
  'type' in e.event ? e.event.type === type : e.event.event.type === type

/**
 * Judged once per new `acquired` (only an entry can break mutual exclusion): how many events were
 * judged, and the last of them. The explorer may cut the list back to a saved state's and grow
 * it again; an event object it no longer holds at that index means judging it all anew.
 */
const judged = new WeakMap<readonly Emitted[], { count: number; last: Emitted | undefined }>()
const judgedUpTo = (events: readonly Emitted[]) => {
  const seen = judged.get(events)
  const kept =
    seen !== undefined && seen.count <= events.length && events[seen.count - 1] === seen.last
  judged.set(events, { count: events.length, last: events[events.length - 1] })
  return kept ? seen.count : 0
}

export const mutexElectionCheck: CheckSpec = {
  scenario: 'mutex-centralized',
  what: `3 nodes run the majority election (heartbeat ${HEARTBEAT.intervalMs} ms, timeout ${HEARTBEAT.timeoutMs} ms) and the centralized lock with leases (${LEASE.leaseMs} ms, max message delay ${LEASE.maxDelayMs} ms) whose coordinator is the leader (electionToLock, leaderLease); node 1 takes the lock and holds it, node 3 (the first leader) asks for it too, and node 3 is cut off alone at ${CUT_AT} ms; time is bounded at ${UNTIL_MS} ms. No two valid leases overlap and fencing tokens rise in entry order, across all nodes (checkMutualExclusion over every node's lock events, a lease ending at its expiry); a schedule in which a lock message took longer than ${LEASE.maxDelayMs} ms is outside the lock's assumption and not judged from then on`,
  defaultN: 3,
  minN: 3,
  maxN: 3,
  defaults: { depth: 400, until: UNTIL_MS, maxSchedules: 300 },
  build() {
    return mutexElectionScenario('lease')
  },
}

/** A node of the spec: the composed lock and election, its messages stamped with their send time. */
export const mutexElectionNode = (wiring: LockWiring) => withDelays(nodeOf(wiring))

/** The spec's scenario, with the fixed wiring or the one before. */
export function mutexElectionScenario(wiring: LockWiring): ExploreScenario<NodeEvent> {
  const ids: NodeId[] = [1, 2, 3]
  return {
    setup(net) {
      net.launch(ids, mutexElectionNode(wiring))
      net.request(1, { proto: 'lock', req: { type: 'acquire' } }, 70)
      net.request(3, { proto: 'lock', req: { type: 'acquire' } }, 75)
      net.at(CUT_AT, () => net.partition([3], [1, 2]))
    },
    invariant({ events }) {
      const fresh = events.slice(judgedUpTo(events))
      if (!fresh.some((e) => isType(e, 'acquired') || isType(e, 'late'))) return undefined
      const late = events.findIndex((e) => isType(e, 'late'))
      const judge = late < 0 ? events : events.slice(0, late)
      // Every node's lock events at once; a lease ends at its expiry (leaseMs, lease-renewed).
      return checkMutualExclusion(lockEvents(judge)).violations[0]
    },
  }
}
