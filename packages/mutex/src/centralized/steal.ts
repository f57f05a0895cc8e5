import type { NodeId } from '@sd/transport'
import type { Node } from './node.js'
import type { CentralizedCtx } from './protocol.js'
import { close, type Holder, holdersOf, type Resource, victimsOf } from './resource.js'
import { delayKey, expireKey, RESEND_STOLEN } from './timer-keys.js'

/**
 * Web Locks' steal, kept mutually exclusive under every fault. A steal goes first in the queue
 * (grant-order.ts); at the head it revokes every holder at once (each told STOLEN: `lease-lost`,
 * reason `'stolen'`) and ends the lock-delays, then waits: the stealer is granted once every victim
 * acknowledged (STOLEN-ACK, or its RELEASE of that token) or, with leases, once the victim's lease
 * can have run out (its expiry timer at the coordinator goes on counting, and renewals of a stolen
 * token are ignored). STOLEN is sent again every `resendEveryMs` until then. Without leases, a
 * victim that crashed or is cut off holds the stealer back, like any holder its waiting requests.
 */
export class Steals {
  constructor(
    private readonly node: Node,
    /** Called when the last victim of `name` is gone: the stealer may be granted. */
    private readonly onFree: (name: string, ctx: CentralizedCtx) => void,
  ) {}

  /** Whether the steal at the head of `name`'s queue may be granted now (revoking, if it must). */
  ready(name: string, r: Resource, by: NodeId, ctx: CentralizedCtx): boolean {
    for (const token of [...r.delayed.keys()].sort((a, b) => a - b)) {
      ctx.cancelTimer(delayKey(name, token))
      r.delayed.delete(token)
    }
    const revoked = holdersOf(r)
    if (revoked.length === 0) return r.victims.size === 0
    // Every holder moves to the victims before any is told: a local victim's acknowledgement
    // comes back at once and must find the whole steal in place.
    for (const h of revoked) {
      r.holders.delete(h.node)
      close(r, h.token, h)
      r.victims.set(h.token, h)
      ctx.emit({ type: 'stolen', resource: name, node: h.node, token: h.token, by })
    }
    for (const h of revoked) this.tell(name, h, ctx)
    if (r.victims.size > 0) ctx.setTimer(RESEND_STOLEN + name, this.node.settings.resendEveryMs)
    return false
  }

  /** STOLEN-ACK or a RELEASE of `token` from `from`: true when it ended a victim's entry. */
  acknowledged(from: NodeId, name: string, r: Resource, token: number, ctx: CentralizedCtx) {
    const victim = r.victims.get(token)
    if (victim?.node !== from) return false
    this.end(name, r, victim, ctx)
    return true
  }

  /** A victim's lease timer ran out (`which` picks it): true when it ended a victim's entry. */
  leaseOver(
    name: string,
    r: Resource,
    which: (v: Holder) => boolean,
    ctx: CentralizedCtx,
  ): boolean {
    const victim = victimsOf(r).find(which)
    if (victim === undefined) return false
    ctx.emit({ type: 'lease-expired', resource: name, node: victim.node, token: victim.token })
    this.end(name, r, victim, ctx)
    return true
  }

  /** A victim claims (SYNC) the token stolen from it: it has not heard, so it is told again. */
  claimed(from: NodeId, name: string, r: Resource, token: number, ctx: CentralizedCtx): boolean {
    const victim = r.victims.get(token)
    if (victim?.node !== from) return false
    this.tell(name, victim, ctx)
    return true
  }

  /** The resend timer: STOLEN again to every victim still silent (the message may be lost). */
  resend(name: string, r: Resource | undefined, ctx: CentralizedCtx): void {
    if (r === undefined || r.victims.size === 0) return
    for (const v of victimsOf(r)) this.tell(name, v, ctx)
    if (r.victims.size > 0) ctx.setTimer(RESEND_STOLEN + name, this.node.settings.resendEveryMs)
  }

  /** The role ends: the timers of a waiting steal go (its victims are forgotten with the rest). */
  stop(name: string, r: Resource, ctx: CentralizedCtx): void {
    for (const v of victimsOf(r)) ctx.cancelTimer(expireKey(name, v))
    ctx.cancelTimer(RESEND_STOLEN + name)
  }

  private end(name: string, r: Resource, victim: Holder, ctx: CentralizedCtx): void {
    r.victims.delete(victim.token)
    ctx.cancelTimer(expireKey(name, victim))
    if (r.victims.size > 0) return
    ctx.cancelTimer(RESEND_STOLEN + name)
    this.onFree(name, ctx)
  }

  /** STOLEN names the request the entry answered, so a GRANT still on its way is not entered. */
  private tell(name: string, h: Holder, ctx: CentralizedCtx): void {
    this.node.toClient(
      h.node,
      { type: 'stolen', term: this.node.term, resource: name, token: h.token, seq: h.seq },
      ctx,
    )
  }
}
