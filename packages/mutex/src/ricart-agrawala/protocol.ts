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
  type ViewRequest,
  type WithLockFeatures,
  withLockFeatures,
} from '../contract.js'
import { announceRequest } from '../lamport/announce.js'
import { admitViewed } from '../lamport/peer-message.js'
import { fencingToken, nodeClock, rankOf } from '../lamport/timestamp.js'
import { GroupView, parseViewRequest, type ViewInstall } from '../lamport/view.js'
import { idSet, nameMap } from '../snapshot.js'
import type { RicartAgrawalaEvent } from './events.js'
import { parseMessage, type RicartAgrawalaMessage } from './messages.js'
import { conflicts, modeField, parseModedRequest } from './modes.js'
import { type RicartAgrawalaOptions, resolveOptions } from './options.js'

/** What every handler and helper is handed (never kept). */
export type RicartAgrawalaCtx = Ctx<RicartAgrawalaMessage, RicartAgrawalaEvent>

/** One resource's state at one node. */
interface Resource {
  /** WAITING: wanted, the request not yet stamped (a new view's members not all heard from). */
  state: 'RELEASED' | 'WAITING' | 'WANTED' | 'HELD'
  /** Time of the node's current request (WANTED or HELD). */
  time: number
  /** The fencing token of that request (its time and the node's rank in the view it was made in). */
  token: number
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
  view: unknown
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

/** The deferred requests as `[peer, time]` pairs, in the order they are answered. */
function deferredList(deferred: ReadonlyMap<NodeId, number>): Array<[NodeId, number]> {
  const out: Array<[NodeId, number]> = []
  for (const [peer, time] of deferred) out.push([peer, time])
  return out
}

const TIMER_PREFIX = 'answer:'
/** Stable storage key of the Lamport clock. */
const CLOCK_KEY = 'lamport-clock'
/** Stable storage key of the installed view (a restarted node resumes in it). */
const VIEW_KEY = 'view'

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
 *
 * Views (a `ViewRequest` from a membership service; 'views'): the group is the members of the
 * node's installed view, and every message carries its view number (none in view 0, the launch
 * group). A message of a newer view waits until the node installs that view (installing it from
 * the message alone would need its members list); one of an older view is dropped, since its
 * sender redoes what still matters when it installs the view. On installing view v a node drops
 * every deferred OK (removed peers need none; the others re-ask in v), and a request of its own
 * that waits (WANTED) is made again in v: stamped anew once every member of v said it installed v
 * too (a `view` message), so its clock is then above every request entered before (a joiner's
 * first request too: fencing tokens keep increasing). OKs are only counted from v's members for a
 * request made in v, so a removed peer's OK is not needed and a joiner's is. A holder keeps its
 * entry across the change: a member asking in v needs its OK, deferred until it leaves. A request
 * in flight across the change (sent in v, reaching a node still in v - 1) waits there until that
 * node installs v, then is answered by the usual rule; its OK to a request of v - 1 is dropped
 * once the requester is in v, and the requester asks again in v.
 *
 * Why mutual exclusion holds: two nodes in the same view exchange OKs as in the classic proof. A
 * node in v cannot enter beside one still in v - 1 that is a member of v, since it needs that
 * member's OK, which waits for v. The only entry no member of v is asked about is one of a node
 * removed in v: so the precondition, which the membership service must keep, is that a removed
 * node has crashed or left (released, and asks no more) before the view without it is installed.
 * Removing a live holder breaks mutual exclusion (the test shows it); with no lease there is no
 * other way to know its entry is over. Consecutive views must share a live member (the clocks
 * carry over through it).
 */
export function ricartAgrawala(
  options: RicartAgrawalaOptions = {},
): WithLockFeatures<
  ProtocolFactory<RicartAgrawalaMessage, MutexRequest | ViewRequest, RicartAgrawalaEvent>
> {
  const settings = resolveOptions(options)
  const factory: ProtocolFactory<
    RicartAgrawalaMessage,
    MutexRequest | ViewRequest,
    RicartAgrawalaEvent
  > = (self) => {
    const clock = nodeClock(self, settings.initialClock)
    const resources = new Map<string, Resource>()
    let rank = 0
    const group = new GroupView<RicartAgrawalaMessage>()

    const stateOf = (name: string): Resource => {
      let r = resources.get(name)
      if (r === undefined) {
        r = {
          state: 'RELEASED',
          time: 0,
          token: 0,
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
      if (r.state !== 'WANTED' || r.oks.size < group.peers.size) return
      r.state = 'HELD'
      ctx.cancelTimer(TIMER_PREFIX + name)
      ctx.emit({ type: 'acquired', resource: name, token: r.token, ...modeField(r.mode) })
    }

    const request = (name: string, r: Resource, mode: LockMode, ctx: RicartAgrawalaCtx) => {
      r.mode = mode
      r.oks.clear()
      r.answered.clear()
      if (!group.ready) {
        r.state = 'WAITING' // stamped once every member of the new view was heard from
        return
      }
      r.state = 'WANTED'
      r.time = stamp(ctx) // one multicast event: every copy carries the same T
      r.token = fencingToken(r.time, rank)
      // View 0 is the launch group: the broadcast it always was.
      announceRequest(name, r.time, rank, ctx, modeField(mode), {
        ...group.stamp(),
        to: group.view > 0 ? [...group.peers] : undefined,
      })
      if (settings.alwaysAnswer && group.peers.size > 0) {
        ctx.setTimer(TIMER_PREFIX + name, settings.answerTimeoutMs)
      }
      enterIfAllowed(name, r, ctx)
    }

    const release = (name: string, r: Resource, ctx: RicartAgrawalaCtx) => {
      r.state = 'RELEASED'
      r.mode = 'exclusive' // canonical: the mode of no request
      ctx.emit({ type: 'released', resource: name, token: r.token })
      for (const [peer, req] of r.deferred) {
        ctx.send(peer, { type: 'ok', resource: name, time: stamp(ctx), req, ...group.stamp() })
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
        ctx.send(from, {
          type: 'ok',
          resource: name,
          time: stamp(ctx),
          req: time,
          ...group.stamp(),
        })
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
        ctx.send(from, {
          type: 'deny',
          resource: name,
          time: stamp(ctx),
          req: time,
          ...group.stamp(),
        })
      }
    }

    /** Requests that waited for the view's members are stamped and sent, in resource order. */
    const requestWaiting = (ctx: RicartAgrawalaCtx) => {
      if (!group.ready) return
      for (const [name, r] of resources) {
        if (r.state === 'WAITING') request(name, r, r.mode, ctx)
      }
    }

    const sayInstalled = (ctx: RicartAgrawalaCtx) => {
      for (const peer of group.peers) {
        ctx.send(peer, { type: 'view', view: group.view, time: stamp(ctx), ask: true })
      }
    }

    const installView = (next: ViewInstall, ctx: RicartAgrawalaCtx) => {
      ctx.storage.set(VIEW_KEY, { view: next.view, peers: next.peers, self: next.self })
      const due = group.install(next)
      rank = rankOf(self, next.peers)
      for (const [name, r] of resources) {
        r.deferred.clear() // removed peers need no OK; the others ask again in this view
        if (r.state !== 'WANTED' && r.state !== 'WAITING') continue
        ctx.cancelTimer(TIMER_PREFIX + name)
        r.oks.clear()
        r.answered.clear()
        if (next.self) {
          r.state = 'WAITING'
        } else {
          r.state = 'RELEASED'
          r.queued = []
          ctx.emit({
            type: 'ignored',
            from: self,
            reason: `acquire of ${name}: not in view ${next.view}`,
          })
        }
      }
      if (next.self) sayInstalled(ctx)
      for (const { from, msg } of due) handle(from, msg, ctx)
      requestWaiting(ctx)
    }

    /** A peer's message of this node's view. */
    const handle = (from: NodeId, m: RicartAgrawalaMessage, ctx: RicartAgrawalaCtx) => {
      clock.receive(m.time)
      const first = group.view > 0 && group.heard(from) // anything stamped in the view says so
      if (m.type === 'view') {
        if (m.ask) ctx.send(from, { type: 'view', view: group.view, time: stamp(ctx) })
      } else if (m.type === 'request') {
        onPeerRequest(from, m.resource, m.time, m.mode ?? 'exclusive', ctx)
      } else {
        onAnswer(from, m, ctx)
      }
      if (first) requestWaiting(ctx)
    }

    const onAnswer = (
      from: NodeId,
      m: Extract<RicartAgrawalaMessage, { type: 'ok' | 'deny' }>,
      ctx: RicartAgrawalaCtx,
    ) => {
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
    }

    const protocol: Protocol<
      RicartAgrawalaMessage,
      MutexRequest | ViewRequest,
      RicartAgrawalaEvent
    > = {
      snapshot: () => ({
        clock: clock.time,
        rank,
        view: group.snapshot(),
        resources: nameMap(resources, (r) => ({
          state: r.state,
          time: r.time,
          token: r.token,
          mode: r.mode,
          oks: idSet(r.oks),
          answered: idSet(r.answered),
          // Answered in this order at exit, each OK stamped one later than the one before: two
          // nodes that deferred the same peers in another order send different stamps.
          deferred: deferredList(r.deferred),
          // Served in this order, each in its mode.
          queued: r.queued.slice(),
        })),
      }),

      // It copies every list into a Set, Map or array of its own (the view's too): the explorer
      // can hand it its saved snapshot instead of a copy per restore.
      restoreCopies: true,
      // Every list and object above is made here: a checkpoint keeps the snapshot as it is.
      snapshotCopies: true,

      restore(snapshot) {
        const s = snapshot as RicartAgrawalaSnapshot
        clock.restore(s.clock)
        rank = s.rank
        group.restore(s.view as Parameters<typeof group.restore>[0])
        resources.clear()
        for (const [name, r] of s.resources) {
          resources.set(name, {
            state: r.state,
            time: r.time,
            token: r.token,
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
        group.start(ctx.peers)
        // A restart resumes in the view installed last, and asks its members to say theirs again.
        const stored = ctx.storage.get(VIEW_KEY) as ViewInstall | undefined
        if (stored !== undefined && stored !== null) {
          group.install(stored)
          rank = rankOf(self, stored.peers)
          if (stored.self) sayInstalled(ctx)
        }
      },

      onRequest(req, ctx) {
        const view = parseViewRequest(req, self)
        if (view !== undefined) {
          if (typeof view === 'string') ctx.emit({ type: 'ignored', from: self, reason: view })
          else if (view.view <= group.view) {
            ctx.emit({
              type: 'ignored',
              from: self,
              reason: `view ${view.view} is not above view ${group.view}`,
            })
          } else installView(view, ctx)
          return
        }
        const parsed = parseModedRequest(req)
        if (typeof parsed === 'string') {
          ctx.emit({ type: 'ignored', from: self, reason: parsed })
          return
        }
        const r = stateOf(parsed.resource)
        if (parsed.type === 'acquire') {
          if (!group.inView) {
            ctx.emit({ type: 'ignored', from: self, reason: `not in view ${group.view}` })
          } else if (r.state === 'RELEASED') {
            // One turn at a time: an acquire made while wanting or holding waits for the next.
            request(parsed.resource, r, parsed.mode, ctx)
          } else r.queued.push(parsed.mode)
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
        const m = admitViewed(from, msg, group, parseMessage, ctx)
        if (m !== undefined) handle(from, m, ctx)
      },

      onTimer(key, ctx) {
        if (!key.startsWith(TIMER_PREFIX)) return
        const name = key.slice(TIMER_PREFIX.length)
        const r = resources.get(name)
        if (r === undefined || r.state !== 'WANTED') return
        for (const peer of group.peers) {
          if (!r.answered.has(peer)) ctx.emit({ type: 'peer-suspected', peer, resource: name })
        }
      },
    }
    return protocol
  }
  return withLockFeatures(factory, ['shared', 'views'])
}
