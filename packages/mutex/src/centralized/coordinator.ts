import { type NodeId, readStored, storedShapes } from '@sd/transport'
import { idMap, nameMap, orNull, type Snapshot } from '../snapshot.js'
import type { CentralizedMessage, Held } from './messages.js'
import type { Node } from './node.js'
import { TOKENS_PER_TERM } from './options.js'
import type { CentralizedCtx } from './protocol.js'

interface Resource {
  /** `seq`: the request it answered (-1 for a holder that reported itself in a SYNC). */
  holder: { node: NodeId; token: number; seq: number; at: number } | undefined
  /** Requests waiting, in the order received (FIFO); `at` of the latest copy (echoed by GRANT). */
  queue: Array<{ node: NodeId; seq: number; at: number }>
  /** Per client, the last request seq queued or granted: a late duplicate is not served twice. */
  seen: Map<NodeId, number>
  /** The highest token released (or expired): a claim of it that arrives late is stale. */
  closed: number
}

const tokenKey = (resource: string) => `token:${resource}`
/** The last token granted on `name` (0 before the first); a damaged value throws StoredStateError. */
const lastToken = (ctx: CentralizedCtx, name: string): number =>
  readStored(ctx.storage, tokenKey(name), storedShapes.count) ?? 0
const EXPIRE = 'expire:'
export const RECOVERY_TIMER = 'recovery'

/**
 * The coordinator role for one term: a FIFO queue and a holder per resource. Its queue and holders
 * are volatile; only the last token per resource is durable (written before the GRANT leaves).
 */
export class CoordinatorRole {
  private readonly resources = new Map<string, Resource>()
  private recovering: boolean
  private readonly heardFrom = new Set<NodeId>()

  constructor(
    private readonly node: Node,
    recovering: boolean,
    ctx: CentralizedCtx,
  ) {
    this.recovering = recovering
    if (!recovering) return
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
      resources: nameMap(this.resources, (r) => ({
        holder: orNull(r.holder, (h) => ({ node: h.node, token: h.token, seq: h.seq, at: h.at })),
        queue: r.queue.map((q) => ({ node: q.node, seq: q.seq, at: q.at })), // FIFO: its order counts
        seen: idMap(r.seen, (seq) => seq),
        closed: r.closed,
      })),
    }
  }

  /** Hands over to another coordinator: forget everything volatile. */
  stop(ctx: CentralizedCtx): void {
    for (const name of this.resources.keys()) ctx.cancelTimer(EXPIRE + name)
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
        this.request(from, msg.resource, msg.seq, msg.at, ctx)
        break
      case 'release':
        this.release(from, msg.resource, msg.token, ctx)
        break
      case 'renew':
        this.renew(from, msg.resource, msg.token, msg.at, ctx)
        break
      case 'sync':
        this.sync(from, msg.epoch, msg.held, msg.wanted, ctx)
        break
    }
  }

  /** Returns false when the key is not this role's. */
  onTimer(key: string, ctx: CentralizedCtx): boolean {
    if (key === RECOVERY_TIMER) {
      if (this.recovering) this.endRecovery(ctx)
      return true
    }
    if (!key.startsWith(EXPIRE)) return false
    const name = key.slice(EXPIRE.length)
    const r = this.resources.get(name)
    if (r?.holder !== undefined) {
      ctx.emit({
        type: 'lease-expired',
        resource: name,
        node: r.holder.node,
        token: r.holder.token,
      })
      r.closed = Math.max(r.closed, r.holder.token)
      r.holder = undefined
      this.grantNext(name, ctx)
    }
    return true
  }

  private res(name: string): Resource {
    let r = this.resources.get(name)
    if (r === undefined) {
      r = { holder: undefined, queue: [], seen: new Map(), closed: 0 }
      this.resources.set(name, r)
    }
    return r
  }

  private request(from: NodeId, name: string, seq: number, at: number, ctx: CentralizedCtx): void {
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
      if (r.holder?.node === from && r.holder.seq === seq) {
        if (!this.node.mayGrant(ctx)) return
        r.holder.at = Math.max(r.holder.at, at)
        this.armLease(name, ctx) // the client counts from `at`, which may be after the GRANT
        this.sendGrant(name, r.holder, ctx)
        return
      }
    }
    const busy = this.recovering || r.holder !== undefined
    if (busy && this.node.settings.whenBusy === 'deny') {
      this.node.toClient(from, { type: 'denied', term: this.node.term, resource: name, seq }, ctx)
      return
    }
    r.seen.set(from, seq)
    ctx.emit({ type: 'requested', resource: name, node: from })
    r.queue.push({ node: from, seq, at })
    this.grantNext(name, ctx)
  }

  private grantNext(name: string, ctx: CentralizedCtx): void {
    const r = this.res(name)
    if (this.recovering || r.holder !== undefined || r.queue.length === 0) return
    // Checked at the moment of granting, on the monotonic clock: a coordinator that was paused or
    // cut off finds its leader lease over before it acts, whatever order its backlog comes in.
    if (!this.node.mayGrant(ctx)) return
    const next = r.queue.shift()!
    // The term leads: a new coordinator's tokens are above every token of the terms before.
    const last = lastToken(ctx, name)
    const token = Math.max(last + 1, this.node.term * TOKENS_PER_TERM + 1)
    ctx.storage.set(tokenKey(name), token) // durable before the GRANT leaves
    r.holder = { node: next.node, token, seq: next.seq, at: next.at }
    this.armLease(name, ctx)
    ctx.emit({ type: 'granted', resource: name, node: next.node, token })
    this.sendGrant(name, r.holder, ctx)
  }

  private sendGrant(name: string, h: NonNullable<Resource['holder']>, ctx: CentralizedCtx): void {
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
      },
      ctx,
    )
  }

  /** The coordinator's lease outlasts the holder's by one message delay (the GRANT in flight). */
  private armLease(name: string, ctx: CentralizedCtx): void {
    const lease = this.node.settings.lease
    if (lease !== undefined) ctx.setTimer(EXPIRE + name, lease.ms + lease.maxDelayMs)
  }

  private release(from: NodeId, name: string, token: number, ctx: CentralizedCtx): void {
    const r = this.res(name)
    // Remembered even when it overtook the holder's SYNC (links may reorder).
    r.closed = Math.max(r.closed, token)
    if (r.holder?.node !== from || r.holder.token !== token) {
      ctx.emit({
        type: 'ignored',
        from,
        reason: `release of ${name} (token ${token}) it does not hold`,
      })
      return
    }
    r.holder = undefined
    ctx.cancelTimer(EXPIRE + name)
    this.grantNext(name, ctx)
  }

  private renew(from: NodeId, name: string, token: number, at: number, ctx: CentralizedCtx): void {
    const r = this.res(name)
    if (r.holder?.node !== from || r.holder.token !== token) {
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
    this.armLease(name, ctx)
    this.node.toClient(
      from,
      { type: 'renewed', term: this.node.term, resource: name, token, at },
      ctx,
    )
  }

  private sync(
    from: NodeId,
    epoch: number,
    held: readonly Held[],
    wanted: ReadonlyArray<{ resource: string; seq: number; at: number }>,
    ctx: CentralizedCtx,
  ): void {
    if (epoch !== this.node.epoch) {
      // Not an answer to this incarnation's RECOVER (sent before a restart, or by a member that
      // restarted): its content may be stale. Ask that member again.
      this.node.toClient(
        from,
        { type: 'recover', term: this.node.term, epoch: this.node.epoch },
        ctx,
      )
      return
    }
    this.heardFrom.add(from)
    for (const h of held) this.claim(from, h, ctx)
    for (const w of wanted) this.request(from, w.resource, w.seq, w.at, ctx)
    if (this.recovering && this.heardEveryone(ctx)) this.endRecovery(ctx)
  }

  /** A client says it holds `name` (granted by a coordinator before this one, or before a restart). */
  private claim(from: NodeId, { resource: name, token }: Held, ctx: CentralizedCtx): void {
    const r = this.res(name)
    if (token <= r.closed) return // released already: its RELEASE overtook this SYNC
    const last = lastToken(ctx, name)
    const grantedThisTerm = last > this.node.term * TOKENS_PER_TERM
    const accept =
      r.holder === undefined
        ? this.recovering || !grantedThisTerm
        : r.holder.node === from && r.holder.token === token
    if (!accept) {
      this.node.toClient(
        from,
        { type: 'revoked', term: this.node.term, resource: name, token },
        ctx,
      )
      return
    }
    r.holder = { node: from, token, seq: -1, at: 0 }
    if (token > last) ctx.storage.set(tokenKey(name), token) // never grant below a known token
    this.armLease(name, ctx)
  }

  private heardEveryone(ctx: CentralizedCtx): boolean {
    return this.heardFrom.has(ctx.self) && ctx.peers.every((p) => this.heardFrom.has(p))
  }

  private endRecovery(ctx: CentralizedCtx): void {
    this.recovering = false
    ctx.cancelTimer(RECOVERY_TIMER)
    ctx.emit({ type: 'recovered', term: this.node.term, heardFrom: [...this.heardFrom] })
    for (const name of [...this.resources.keys()].sort()) this.grantNext(name, ctx)
  }
}
