// Over 450 lines: the coordinator's handlers share one private state, which its snapshot() and
// restored() (the protocol's restore) read and rebuild whole, beside them; steals are in steal.ts.
import { type NodeId, readStored, storedShapes } from '@sd/transport'
import { nameMap, type Snapshot, snapshotFields } from '../snapshot.js'
import { burstOf } from './burst.js'
import { nextToGrant } from './grant-order.js'
import {
  compatible,
  type Hold,
  holdOf,
  isExclusive,
  limitMismatch,
  type Want,
  wantOf,
} from './kinds.js'
import { stateOf } from './lock-state.js'
import type { CentralizedMessage, Held, Wanted } from './messages.js'
import type { Node } from './node.js'
import { TOKENS_PER_TERM } from './options.js'
import type { CentralizedCtx } from './protocol.js'
import {
  blockersOf,
  close,
  type Holder,
  holdersOf,
  isClosed,
  newResource,
  type Resource,
  resourceFrom,
  resourceSnapshot,
  type Waiting,
} from './resource.js'
import { Steals } from './steal.js'
import {
  delayKey,
  EXPIRE,
  EXPIRE_HOLDER,
  expireKey,
  keyPair,
  LOCK_DELAY,
  RESEND_STOLEN,
} from './timer-keys.js'
import { isStranger, leaveOut } from './views.js'

const tokenKey = (resource: string) => `token:${resource}`
/** The last token granted on `name` (0 before the first); a damaged value throws StoredStateError. */
const lastToken = (ctx: CentralizedCtx, name: string): number =>
  readStored(ctx.storage, tokenKey(name), storedShapes.count) ?? 0
export const RECOVERY_TIMER = 'recovery'

/**
 * The coordinator role for one term: a queue and a set of holders per resource (one exclusive
 * holder, or shared holders, or permit holders within their limit). Its queues and holders are
 * volatile; only the last token per resource is durable (written before the GRANT leaves), and
 * every grant, whatever its kind, takes the next token.
 */
export class CoordinatorRole {
  private readonly resources = new Map<string, Resource>()
  private recovering: boolean
  private readonly heardFrom = new Set<NodeId>()
  private readonly steals: Steals

  /** `ctx` is undefined for a role `restored`: what it announced and armed at its start is done. */
  constructor(
    private readonly node: Node,
    recovering: boolean,
    ctx: CentralizedCtx | undefined,
  ) {
    this.recovering = recovering
    this.steals = new Steals(node, (name, c) => this.grantNext(name, c))
    if (!recovering || ctx === undefined) return
    // It does not know who holds what: no grant before every member reported, or (with leases)
    // before every lease the previous coordinator gave can have run out.
    ctx.emit({ type: 'recovering', term: node.term })
    const lease = node.settings.lease
    if (lease !== undefined) ctx.setTimer(RECOVERY_TIMER, lease.ms + lease.maxDelayMs)
  }

  /** This role's state as canonical plain data (see `Protocol.snapshot`). */
  snapshot(): Snapshot {
    return {
      recovering: this.recovering,
      // Read only while recovering, and then in arrival order (the `recovered` event lists it).
      heardFrom: this.recovering ? [...this.heardFrom] : [],
      resources: nameMap(this.resources, resourceSnapshot),
    }
  }

  /** The role `snapshot()` gave, live again (for the protocol's `restore()`). */
  static restored(node: Node, snapshot: Snapshot): CoordinatorRole {
    const s = snapshotFields(snapshot, 'centralized()', ['recovering', 'heardFrom', 'resources'])
    const role = new CoordinatorRole(node, s.recovering as boolean, undefined)
    for (const id of s.heardFrom as NodeId[]) role.heardFrom.add(id)
    for (const [name, r] of s.resources as Array<[string, Snapshot]>)
      role.resources.set(name, resourceFrom(r))
    return role
  }

  /** Hands over to another coordinator: forget everything volatile. */
  stop(ctx: CentralizedCtx): void {
    // In name and token order, as every walk: a restored role (its maps rebuilt sorted) does alike.
    for (const name of [...this.resources.keys()].sort()) {
      const r = this.res(name)
      for (const h of holdersOf(r)) ctx.cancelTimer(expireKey(name, h))
      for (const token of [...r.delayed.keys()].sort((a, b) => a - b))
        ctx.cancelTimer(delayKey(name, token))
      this.steals.stop(name, r, ctx)
    }
    ctx.cancelTimer(RECOVERY_TIMER)
    this.resources.clear()
  }

  /** A valid leader lease arrived: requests held back for lack of one are served now. */
  resume(ctx: CentralizedCtx): void {
    if (this.recovering) return
    for (const name of [...this.resources.keys()].sort()) this.grantNext(name, ctx)
  }

  onMessage(from: NodeId, msg: CentralizedMessage, ctx: CentralizedCtx): void {
    switch (msg.type) {
      case 'request':
        if (isStranger(this.node.group, from, msg.type, ctx)) return
        this.request(from, msg, ctx)
        break
      case 'release':
        this.release(from, msg.resource, msg.token, msg, ctx)
        break
      case 'renew':
        this.renew(from, msg.resource, msg.token, msg.at, ctx)
        break
      case 'sync':
        this.sync(from, msg.epoch, msg.view ?? 0, msg.held, msg.wanted, ctx)
        break
      case 'stolen-ack':
        this.steals.acknowledged(from, msg.resource, this.res(msg.resource), msg.token, ctx)
        break
      case 'query': {
        // Its view now, even while recovering (then incomplete, and said so); nothing is kept.
        const state = stateOf(this.resources, this.node.settings.readers)
        const { term } = this.node
        const answer = {
          type: 'lock-state',
          term,
          id: msg.id,
          recovering: this.recovering,
          ...state,
        }
        this.node.toClient(from, answer as CentralizedMessage, ctx)
        break
      }
    }
  }

  /** Returns false when the key is not this role's. */
  onTimer(key: string, ctx: CentralizedCtx): boolean {
    if (key === RECOVERY_TIMER) {
      if (this.recovering) this.endRecovery(ctx)
      return true
    }
    if (key.startsWith(EXPIRE)) {
      const name = key.slice(EXPIRE.length)
      const r = this.resources.get(name)
      const h = r?.holders.values().next().value
      if (h !== undefined && isExclusive(h)) this.expire(name, h, ctx)
      else if (r !== undefined) this.steals.leaseOver(name, r, isExclusive, ctx)
      return true
    }
    if (key.startsWith(EXPIRE_HOLDER)) {
      const pair = keyPair(key.slice(EXPIRE_HOLDER.length))
      const r = pair && this.resources.get(pair[0])
      const h = pair && r?.holders.get(pair[1] as NodeId)
      if (pair && h) this.expire(pair[0], h, ctx)
      else if (pair && r) {
        this.steals.leaseOver(pair[0], r, (v) => v.node === pair[1] && !isExclusive(v), ctx)
      }
      return true
    }
    if (key.startsWith(RESEND_STOLEN)) {
      const name = key.slice(RESEND_STOLEN.length)
      this.steals.resend(name, this.resources.get(name), ctx)
      return true
    }
    if (key.startsWith(LOCK_DELAY)) {
      const pair = keyPair(key.slice(LOCK_DELAY.length))
      const r = pair && this.resources.get(pair[0])
      if (pair && r?.delayed.delete(pair[1] as number)) {
        ctx.emit({ type: 'lock-delay-over', resource: pair[0], token: pair[1] as number })
        this.grantNext(pair[0], ctx)
      }
      return true
    }
    return false
  }

  /** A holder's lease ran out at the coordinator without a release. */
  private expire(name: string, h: Holder, ctx: CentralizedCtx): void {
    const r = this.res(name)
    ctx.emit({ type: 'lease-expired', resource: name, node: h.node, token: h.token })
    close(r, h.token, h)
    r.holders.delete(h.node)
    const delayMs = this.node.settings.lockDelayMs
    if (delayMs !== undefined) {
      // The holder may not know yet (paused, cut off): what it held stays taken a while longer.
      r.delayed.set(h.token, holdOf(h))
      ctx.setTimer(delayKey(name, h.token), delayMs)
      ctx.emit({ type: 'lock-delay', resource: name, node: h.node, token: h.token, delayMs })
    }
    this.grantNext(name, ctx)
  }

  private res(name: string): Resource {
    let r = this.resources.get(name)
    if (r === undefined) {
      r = newResource()
      this.resources.set(name, r)
    }
    return r
  }

  private request(
    from: NodeId,
    w: Want & { resource: string; seq: number; at: number },
    ctx: CentralizedCtx,
  ): void {
    const { resource: name, seq, at } = w
    const r = this.res(name)
    // A request sent again (after a change, a restart, or by its client's resend timer) or
    // duplicated is queued once. Its client still waits, so a GRANT it answered was lost: the
    // holder gets it again; granted and since ended (a GRANT lost, then its lease expired), it is
    // queued again (a stale copy only costs a grant its client gives straight back).
    const seen = r.seen.get(from) ?? -1
    if (seq < seen) return
    if (seq === seen) {
      const queued = r.queue.find((q) => q.node === from && q.seq === seq)
      if (queued !== undefined) {
        queued.at = Math.max(queued.at, at) // the client's lease will count from this copy
        return
      }
      const holder = r.holders.get(from)
      if (holder?.seq === seq) {
        if (!this.node.mayGrant(ctx)) return
        holder.at = Math.max(holder.at, at)
        this.armLease(name, holder, ctx) // the client counts from `at`, which may be after the GRANT
        this.sendGrant(name, holder, ctx)
        return
      }
    }
    const limit = limitMismatch(w, [...r.holders.values(), ...r.delayed.values(), ...r.queue])
    if (limit !== undefined) {
      this.refuse(from, name, seq, 'limit-mismatch', limit, ctx)
      return
    }
    const busy = this.recovering || !compatible(w, blockersOf(r))
    if (
      busy &&
      w.steal !== true &&
      w.ifAvailable !== true &&
      this.node.settings.whenBusy === 'deny'
    ) {
      this.node.toClient(from, { type: 'denied', term: this.node.term, resource: name, seq }, ctx)
      return
    }
    r.seen.set(from, seq)
    ctx.emit({ type: 'requested', resource: name, node: from, ...holdOf(w) })
    r.queue.push({ node: from, seq, at, ...wantOf(w) })
    this.grantNext(name, ctx)
    if (w.ifAvailable !== true) return
    // Granted at once, or not at all: nothing waits.
    const still = r.queue.findIndex((q) => q.node === from && q.seq === seq)
    if (still < 0) return
    r.queue.splice(still, 1)
    this.refuse(from, name, seq, 'unavailable', 0, ctx)
  }

  private refuse(
    to: NodeId,
    name: string,
    seq: number,
    reason: 'unavailable' | 'limit-mismatch',
    limit: number,
    ctx: CentralizedCtx,
  ): void {
    const msg = { type: 'refused', term: this.node.term, resource: name, seq, reason, limit }
    this.node.toClient(to, msg as CentralizedMessage, ctx)
  }

  private grantNext(name: string, ctx: CentralizedCtx): void {
    const r = this.res(name)
    for (;;) {
      if (this.recovering || r.queue.length === 0) return
      const { readers } = this.node.settings
      const index = nextToGrant(r.queue, blockersOf(r), new Set(r.holders.keys()), readers)
      if (index < 0) return
      // Checked at the moment of granting, on the monotonic clock: a coordinator that was paused or
      // cut off finds its leader lease over before it acts, whatever order its backlog comes in.
      if (!this.node.mayGrant(ctx)) return
      // A steal revokes the holders, and is granted once they are gone (steal.ts).
      const head = r.queue[index]!
      if (head.steal === true && !this.steals.ready(name, r, head.node, ctx)) return
      const [next] = r.queue.splice(index, 1) as [Waiting]
      // The term leads: a new coordinator's tokens are above every token of the terms before.
      const last = lastToken(ctx, name)
      const token = Math.max(last + 1, this.node.term * TOKENS_PER_TERM + 1)
      // Option `burst`: the grant's entries take the tokens reserved here (burst.ts).
      const burst = burstOf(next, this.node.settings.burst)
      ctx.storage.set(tokenKey(name), token + burst - 1) // durable before the GRANT leaves
      const holder: Holder = {
        node: next.node,
        token,
        seq: next.seq,
        at: next.at,
        ...holdOf(next),
        ...(burst > 1 ? { burst } : {}),
      }
      r.holders.set(next.node, holder)
      this.armLease(name, holder, ctx)
      ctx.emit({ type: 'granted', resource: name, node: next.node, token, ...holdOf(next) })
      this.sendGrant(name, holder, ctx)
    }
  }

  private sendGrant(name: string, h: Holder, ctx: CentralizedCtx): void {
    this.node.toClient(
      h.node,
      {
        type: 'grant',
        term: this.node.term,
        epoch: this.node.epoch,
        resource: name,
        seq: h.seq,
        token: h.token,
        at: h.at,
        ...(h.burst !== undefined ? { burst: h.burst } : {}),
        ...holdOf(h),
      },
      ctx,
    )
  }

  /** The coordinator's lease outlasts the holder's by one message delay (the GRANT in flight). */
  private armLease(name: string, h: Holder, ctx: CentralizedCtx): void {
    const lease = this.node.settings.lease
    if (lease !== undefined) ctx.setTimer(expireKey(name, h), lease.ms + lease.maxDelayMs)
  }

  private release(
    from: NodeId,
    name: string,
    token: number,
    hold: Hold,
    ctx: CentralizedCtx,
  ): void {
    const r = this.res(name)
    // Remembered even when it overtook the holder's SYNC (links may reorder).
    close(r, token, hold)
    if (this.steals.acknowledged(from, name, r, token, ctx)) return // a victim gave it back
    const h = r.holders.get(from)
    if (h?.token !== token) {
      ctx.emit({
        type: 'ignored',
        from,
        reason: `release of ${name} (token ${token}) it does not hold`,
      })
      return
    }
    r.holders.delete(from)
    ctx.cancelTimer(expireKey(name, h))
    this.grantNext(name, ctx)
  }

  private renew(from: NodeId, name: string, token: number, at: number, ctx: CentralizedCtx): void {
    const h = this.res(name).holders.get(from)
    if (h?.token !== token) {
      // No answer: the holder's own lease runs out before anyone else is granted.
      ctx.emit({
        type: 'ignored',
        from,
        reason: `renew of ${name} (token ${token}) it does not hold`,
      })
      return
    }
    if (!this.node.mayGrant(ctx)) {
      // No answer: the holder's lease runs out, as no other grant can be made without a lease.
      ctx.emit({
        type: 'ignored',
        from,
        reason: `renew of ${name} (token ${token}) without a valid leader lease`,
      })
      return
    }
    this.armLease(name, h, ctx)
    this.node.toClient(
      from,
      { type: 'renewed', term: this.node.term, resource: name, token, at },
      ctx,
    )
  }

  private sync(
    from: NodeId,
    epoch: number,
    view: number,
    held: readonly Held[],
    wanted: readonly Wanted[],
    ctx: CentralizedCtx,
  ): void {
    const { group } = this.node
    const recover = { type: 'recover', term: this.node.term, epoch: this.node.epoch }
    if (epoch !== this.node.epoch) {
      // Not an answer to this incarnation's RECOVER (sent before a restart, or by a member that
      // restarted): its content may be stale. Ask that member again.
      this.node.toClient(from, { ...recover, ...group.stamp() } as CentralizedMessage, ctx)
      return
    }
    if (isStranger(group, from, 'sync', ctx)) return
    // Only a report of this view counts; an older one's sender is asked again (its content is kept).
    if (view === group.view) this.heardFrom.add(from)
    else if (view < group.view) {
      this.node.toClient(from, { ...recover, ...group.stamp() } as CentralizedMessage, ctx)
    }
    for (const h of held) this.claim(from, h, ctx)
    for (const w of wanted) this.request(from, w, ctx)
    if (this.recovering && this.heardEveryone(ctx)) this.endRecovery(ctx)
  }

  /** A client says it holds `name` (granted by a coordinator before this one, or before a restart). */
  private claim(from: NodeId, held: Held, ctx: CentralizedCtx): void {
    const { resource: name, token } = held
    const r = this.res(name)
    if (this.steals.claimed(from, name, r, token, ctx)) return // stolen: it is told again
    if (isClosed(r, token, held)) return // released already: its RELEASE overtook this SYNC
    const last = lastToken(ctx, name)
    const grantedThisTerm = last > this.node.term * TOKENS_PER_TERM
    const mine = r.holders.get(from)
    // Its own entry again, or one that fits beside the holders a coordinator that granted
    // nothing in this term has heard of (an exclusive one fits beside none).
    const accept =
      mine === undefined
        ? (this.recovering || !grantedThisTerm) && compatible(held, blockersOf(r))
        : mine.token === token
    if (!accept) {
      this.node.toClient(
        from,
        { type: 'revoked', term: this.node.term, resource: name, token },
        ctx,
      )
      return
    }
    const holder: Holder = { node: from, token, seq: -1, at: 0, ...holdOf(held) }
    r.holders.set(from, holder)
    if (token > last) ctx.storage.set(tokenKey(name), token) // never grant below a known token
    this.armLease(name, holder, ctx)
  }

  private heardEveryone(ctx: CentralizedCtx): boolean {
    const others = this.node.group.others(ctx)
    return this.heardFrom.has(ctx.self) && others.every((p) => this.heardFrom.has(p))
  }

  /** A view installed here (views.ts `leaveOut`); true when recovering: members are asked again. */
  viewInstalled(ctx: CentralizedCtx): boolean {
    const { group, settings } = this.node
    for (const name of [...this.resources.keys()].sort()) {
      leaveOut(name, this.res(name), group, settings.lease !== undefined, ctx)
      this.grantNext(name, ctx)
    }
    if (this.recovering) this.heardFrom.clear() // reports of the old view count no more
    return this.recovering
  }

  private endRecovery(ctx: CentralizedCtx): void {
    this.recovering = false
    ctx.cancelTimer(RECOVERY_TIMER)
    ctx.emit({ type: 'recovered', term: this.node.term, heardFrom: [...this.heardFrom] })
    for (const name of [...this.resources.keys()].sort()) this.grantNext(name, ctx)
  }
}
