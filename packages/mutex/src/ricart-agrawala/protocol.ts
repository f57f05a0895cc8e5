import { compareLamport } from '@sd/clocks'
import {
  type Ctx,
  isNonNegInt,
  type NodeId,
  type Protocol,
  type ProtocolFactory,
} from '@sd/transport'
import {
  type LockMode,
  type MutexRequest,
  type WithLockFeatures,
  withLockFeatures,
} from '../contract.js'
import { announceRequest } from '../lamport/announce.js'
import { admitMessage } from '../lamport/peer-message.js'
import { fencingToken, nodeClock, rankOf } from '../lamport/timestamp.js'
import { idSet, nameMap } from '../snapshot.js'
import type { RicartAgrawalaEvent } from './events.js'
import { parseMessage, type RicartAgrawalaMessage } from './messages.js'
import { conflicts, modeField, parseModedRequest } from './modes.js'
import { type RicartAgrawalaOptions, resolveOptions } from './options.js'

/** What every handler and helper is handed (never kept). */
export type RicartAgrawalaCtx = Ctx<RicartAgrawalaMessage, RicartAgrawalaEvent>

/** One resource's state at one node. */
interface Resource {
  state: 'RELEASED' | 'WANTED' | 'HELD'
  /** Time of the node's current request (WANTED or HELD). */
  time: number
  /** Mode of the node's current request ('exclusive' while RELEASED). */
  mode: LockMode
  /** Peers that gave OK to the current request. */
  oks: Set<NodeId>
  /** Peers that answered the current request at all (OK or DENY). */
  answered: Set<NodeId>
  /** Peers whose requests wait for this node's OK, with their request times. */
  deferred: Map<NodeId, number>
  /** Local acquires made while this node already wanted or held the resource, by mode, in order. */
  queued: LockMode[]
}

/** What `snapshot()` gives and `restore()` takes. */
interface RicartAgrawalaSnapshot {
  clock: number
  rank: number
  members: NodeId[]
  resources: Array<
    [
      string,
      Omit<Resource, 'oks' | 'answered' | 'deferred'> & {
        oks: NodeId[]
        answered: NodeId[]
        deferred: Array<[NodeId, number]>
      },
    ]
  >
}

const TIMER_PREFIX = 'answer:'
/** Stable storage key of the Lamport clock. */
const CLOCK_KEY = 'lamport-clock'

/**
 * Ricart and Agrawala's mutual exclusion: a request <T, p> goes to every peer; a peer answers
 * OK at once unless it holds the resource or wants it with an earlier (T, p), in which case it
 * defers the OK to its exit. 2(n - 1) messages per entry (plus one DENY per deferral with
 * alwaysAnswer). A crashed peer blocks every other requester (its OK never comes).
 * Any number of named resources, each with its own state; one Lamport clock per node.
 *
 * Readers-writers (an acquire with `mode: 'shared'`): a request carries its mode, and a peer
 * defers it only when the two conflict (at least one is exclusive); two shared requests never
 * defer each other, so readers hold together. Entries that conflict still follow the (T, p) order
 * of their requests, by the classic argument applied to that pair alone (each needs the other's
 * OK; the later one's OK to the earlier is given at once, and the earlier one's waits for its
 * exit). So the fencing token, (T, p) packed as before, is above every exclusive token entered
 * before a shared entry and above every token entered before an exclusive one: readers do not
 * need tokens of their own. No token repeats: a node's requests have distinct times.
 * No writer starvation: a reader that holds defers a writer's request until it leaves, and a
 * reader that asks after a writer's request reached it has a later timestamp (its clock merged
 * the writer's), so the waiting writer defers it: only readers that asked before hearing of the
 * writer go first, and there are finitely many.
 *
 * The clock is kept in stable storage before each stamp leaves the node, so a node that crashes
 * and restarts never reuses a timestamp: its next request is later than every entry it allowed
 * (fencing tokens keep increasing) and late OKs for its old request are told apart. What it
 * forgets (requests it deferred, requests sent to it while down) leaves those requesters waiting.
 */
export function ricartAgrawala(
  options: RicartAgrawalaOptions = {},
): WithLockFeatures<ProtocolFactory<RicartAgrawalaMessage, MutexRequest, RicartAgrawalaEvent>> {
  const settings = resolveOptions(options)
  const factory: ProtocolFactory<RicartAgrawalaMessage, MutexRequest, RicartAgrawalaEvent> = (
    self,
  ) => {
    const clock = nodeClock(self, settings.initialClock)
    const resources = new Map<string, Resource>()
    let rank = 0
    let members = new Set<NodeId>()

    const stateOf = (name: string): Resource => {
      let r = resources.get(name)
      if (r === undefined) {
        r = {
          state: 'RELEASED',
          time: 0,
          mode: 'exclusive',
          oks: new Set(),
          answered: new Set(),
          deferred: new Map(),
          queued: [],
        }
        resources.set(name, r)
      }
      return r
    }

    /** A send is a clock event; the stamp is stored before it can leave (write, then send). */
    const stamp = (ctx: RicartAgrawalaCtx): number => {
      const time = clock.send()
      ctx.storage.set(CLOCK_KEY, time)
      return time
    }

    const enterIfAllowed = (name: string, r: Resource, ctx: RicartAgrawalaCtx) => {
      if (r.state !== 'WANTED' || r.oks.size < ctx.peers.length) return
      r.state = 'HELD'
      ctx.cancelTimer(TIMER_PREFIX + name)
      ctx.emit({
        type: 'acquired',
        resource: name,
        token: fencingToken(r.time, rank),
        ...modeField(r.mode),
      })
    }

    const request = (name: string, r: Resource, mode: LockMode, ctx: RicartAgrawalaCtx) => {
      r.state = 'WANTED'
      r.mode = mode
      r.time = stamp(ctx) // one multicast event: every copy carries the same T
      r.oks.clear()
      r.answered.clear()
      announceRequest(name, r.time, rank, ctx, modeField(mode))
      if (settings.alwaysAnswer && ctx.peers.length > 0) {
        ctx.setTimer(TIMER_PREFIX + name, settings.answerTimeoutMs)
      }
      enterIfAllowed(name, r, ctx)
    }

    const release = (name: string, r: Resource, ctx: RicartAgrawalaCtx) => {
      r.state = 'RELEASED'
      r.mode = 'exclusive' // canonical: the mode of no request
      ctx.emit({ type: 'released', resource: name, token: fencingToken(r.time, rank) })
      for (const [peer, req] of r.deferred) {
        ctx.send(peer, { type: 'ok', resource: name, time: stamp(ctx), req })
      }
      r.deferred.clear()
      const next = r.queued.shift()
      if (next !== undefined) request(name, r, next, ctx)
    }

    const onPeerRequest = (
      from: NodeId,
      name: string,
      time: number,
      mode: LockMode,
      ctx: RicartAgrawalaCtx,
    ) => {
      const r = stateOf(name)
      const mineFirst =
        conflicts(r.mode, mode) &&
        (r.state === 'HELD' ||
          (r.state === 'WANTED' &&
            compareLamport({ time: r.time, pid: self }, { time, pid: from }) < 0))
      if (!mineFirst) {
        ctx.send(from, { type: 'ok', resource: name, time: stamp(ctx), req: time })
        return
      }
      const waiting = r.deferred.get(from)
      if (waiting !== undefined && waiting > time) {
        // A late duplicate of an older request: the newer one it would replace still waits.
        ctx.emit({
          type: 'ignored',
          from,
          reason: `request of ${name} older than the one deferred`,
        })
        return
      }
      r.deferred.set(from, time)
      ctx.emit({ type: 'deferred', to: from, resource: name, time })
      if (settings.alwaysAnswer) {
        ctx.send(from, { type: 'deny', resource: name, time: stamp(ctx), req: time })
      }
    }

    const protocol: Protocol<RicartAgrawalaMessage, MutexRequest, RicartAgrawalaEvent> = {
      snapshot: () => ({
        clock: clock.time,
        rank,
        members: idSet(members),
        resources: nameMap(resources, (r) => ({
          state: r.state,
          time: r.time,
          mode: r.mode,
          oks: idSet(r.oks),
          answered: idSet(r.answered),
          // Answered in this order at exit, each OK stamped one later than the one before: two
          // nodes that deferred the same peers in another order send different stamps.
          deferred: [...r.deferred].map(([peer, time]) => [peer, time]),
          // Served in this order, each in its mode.
          queued: [...r.queued],
        })),
      }),

      restore(snapshot) {
        const s = snapshot as RicartAgrawalaSnapshot
        clock.restore(s.clock)
        rank = s.rank
        members = new Set(s.members)
        resources.clear()
        for (const [name, r] of s.resources) {
          resources.set(name, {
            state: r.state,
            time: r.time,
            mode: r.mode,
            oks: new Set(r.oks),
            answered: new Set(r.answered),
            deferred: new Map(r.deferred),
            queued: [...r.queued],
          })
        }
      },

      start(ctx) {
        const saved = ctx.storage.get(CLOCK_KEY)
        if (isNonNegInt(saved) && saved > clock.time) clock.restore(saved)
        rank = rankOf(self, ctx.peers)
        members = new Set(ctx.peers)
      },

      onRequest(req, ctx) {
        const parsed = parseModedRequest(req)
        if (typeof parsed === 'string') {
          ctx.emit({ type: 'ignored', from: self, reason: parsed })
          return
        }
        const r = stateOf(parsed.resource)
        if (parsed.type === 'acquire') {
          // One turn at a time: an acquire made while wanting or holding waits for the next.
          if (r.state === 'RELEASED') request(parsed.resource, r, parsed.mode, ctx)
          else r.queued.push(parsed.mode)
        } else if (r.state === 'HELD') {
          release(parsed.resource, r, ctx)
        } else {
          ctx.emit({
            type: 'ignored',
            from: self,
            reason: `release of ${parsed.resource} not held`,
          })
        }
      },

      onMessage(from, msg, ctx) {
        const m = admitMessage(from, msg, members.has(from), parseMessage, ctx)
        if (m === undefined) return
        clock.receive(m.time)
        if (m.type === 'request') {
          onPeerRequest(from, m.resource, m.time, m.mode ?? 'exclusive', ctx)
          return
        }
        const r = resources.get(m.resource)
        const current = r !== undefined && r.state === 'WANTED' && r.time === m.req
        if (m.type === 'deny') {
          // A DENY may arrive after its OK when links reorder: then it is simply late.
          if (current) r.answered.add(from)
          return
        }
        if (!current) {
          ctx.emit({ type: 'ignored', from, reason: `ok for a request not pending (${m.req})` })
          return
        }
        r.answered.add(from)
        r.oks.add(from)
        enterIfAllowed(m.resource, r, ctx)
      },

      onTimer(key, ctx) {
        if (!key.startsWith(TIMER_PREFIX)) return
        const name = key.slice(TIMER_PREFIX.length)
        const r = resources.get(name)
        if (r === undefined || r.state !== 'WANTED') return
        for (const peer of ctx.peers) {
          if (!r.answered.has(peer)) ctx.emit({ type: 'peer-suspected', peer, resource: name })
        }
      },
    }
    return protocol
  }
  return withLockFeatures(factory, ['shared'])
}
