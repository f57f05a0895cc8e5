// Over 450 lines: one resource's client state machine (asks, held, kept grants, leases, steals)
// in one place, as its snapshot() and restore() read it whole; the burst rule is in burst.ts.
import type { NodeId } from '@sd/transport'
import { nameMap, type Snapshot, snapshotFields } from '../snapshot.js'
import { GIVE_BACK, reusesGrant } from './burst.js'
import { type Hold, holdOf, type Want, wantJson, wantOf } from './kinds.js'
import { lockStateEvent } from './lock-state.js'
import type { CentralizedMessage, Held, Wanted } from './messages.js'
import type { Node } from './node.js'
import type { CentralizedCtx } from './protocol.js'

/** One resource as a client sees it: the acquires that wait, and the one request in flight. */
interface Use {
  /** Local acquires not yet answered, in the order made; the first is in flight when pending. */
  asks: Want[]
  /** 'kept': left, but the grant is kept to the end of the turn for another entry (burst.ts). */
  state: 'idle' | 'pending' | 'held' | 'kept'
  /** How the entry holds (when held). */
  held: Hold
  seq: number
  /** The grant's token: every message about the grant carries it. */
  token: number
  /** This entry's token (option `burst`: the grant's token, + 1 for each entry again). */
  entry: number
  /** Entries the grant still covers after this one (option `burst`). */
  left: number
  /** Refusals in a row ('deny'), for the backoff. */
  refusals: number
  /** Until when the lease is known to be valid, on this node's monotonic clock. */
  leaseUntil: number
}

const ANSWER = 'answer:'
const RETRY = 'retry:'
const RENEW = 'renew:'
const LEASE = 'lease:'
const RESEND = 'resend:'
// GIVE_BACK (burst.ts): a kept grant goes back at the end of the turn.

/**
 * The client role: at most one request per resource in flight (more acquires wait their turn
 * locally), so one REQUEST, one GRANT and one RELEASE per use.
 */
export class ClientRole {
  private readonly uses = new Map<string, Use>()
  private seq: number
  /** The term whose coordinator was already reported unreachable (once per term). */
  private reported = -1

  /** `seqBase` differs per incarnation, so a restarted client's requests are never taken for old ones. */
  constructor(
    private readonly node: Node,
    seqBase: number,
  ) {
    this.seq = seqBase
  }

  /** This role's state as canonical plain data (see `Protocol.snapshot`). */
  snapshot(): Snapshot {
    return {
      seq: this.seq,
      reported: this.reported,
      uses: nameMap(this.uses, (u) => ({
        asks: u.asks.map(wantJson),
        state: u.state,
        held: wantJson(u.held),
        seq: u.seq,
        token: u.token,
        refusals: u.refusals,
        leaseUntil: u.leaseUntil,
        // Only with a burst: the snapshots of runs without one are what they were.
        ...(u.entry !== u.token || u.left !== 0 ? { entry: u.entry, left: u.left } : {}),
      })),
    }
  }

  /** Takes on the state `snapshot()` gave (for the protocol's `restore()`). */
  restore(snapshot: Snapshot): void {
    const s = snapshotFields(snapshot, 'centralized()', ['seq', 'reported', 'uses'])
    this.seq = s.seq as number
    this.reported = s.reported as number
    this.uses.clear()
    for (const [name, u] of s.uses as Array<[string, Partial<Use> & Omit<Use, 'entry' | 'left'>]>) {
      const { state, seq, token, refusals, leaseUntil, entry = token, left = 0 } = u
      const asks = u.asks.map(wantOf)
      const held = holdOf(u.held)
      this.uses.set(name, { asks, state, held, seq, token, entry, left, refusals, leaseUntil })
    }
  }

  acquire(name: string, want: Want, ctx: CentralizedCtx): void {
    const { group } = this.node
    if (!group.inView) {
      ctx.emit({ type: 'not-in-view', resource: name, view: group.view })
      return
    }
    const use = this.use(name)
    use.asks.push(want)
    if (use.state === 'kept') this.next(name, use, ctx)
    else if (use.state === 'idle') this.ask(name, use, ctx)
  }

  /** Leaving what is not held does nothing (release is idempotent). */
  release(name: string, ctx: CentralizedCtx): void {
    const use = this.uses.get(name)
    if (use?.state !== 'held') return
    if (use.left > 0) {
      // Option `burst`: the grant is kept (its lease timers go on) for an acquire this turn.
      use.state = 'kept'
      ctx.emit({ type: 'released', resource: name, token: use.entry })
      ctx.setTimer(GIVE_BACK + name, 0)
      if (use.asks.length > 0) this.next(name, use, ctx)
      return
    }
    const held = this.leave(name, use, ctx)
    this.node.toCoordinator(
      { type: 'release', term: this.node.term, resource: name, token: use.token, ...held },
      ctx,
    )
    if (use.asks.length > 0) this.ask(name, use, ctx)
  }

  /** A kept grant and an acquire waiting: enter on it again, or give it back and ask. */
  private next(name: string, use: Use, ctx: CentralizedCtx): void {
    const lease = this.node.settings.lease
    const now = ctx.monotonic()
    const over = use.left === 0 || (lease !== undefined && now >= use.leaseUntil)
    if (over || !reusesGrant(use.asks[0]!, use.held)) {
      this.giveBack(name, use, ctx)
      this.ask(name, use, ctx)
      return
    }
    ctx.cancelTimer(GIVE_BACK + name)
    use.state = 'held'
    use.entry++
    use.left--
    use.held = holdOf(use.asks.shift()!)
    const leaseMs = lease === undefined ? {} : { leaseMs: use.leaseUntil - now }
    ctx.emit({ type: 'acquired', resource: name, token: use.entry, ...use.held, ...leaseMs })
  }

  /** A kept grant goes back to the coordinator (its RELEASE carries the grant's token). */
  private giveBack(name: string, use: Use, ctx: CentralizedCtx): void {
    for (const key of [GIVE_BACK, LEASE, RENEW]) ctx.cancelTimer(key + name)
    use.state = 'idle'
    use.left = 0
    const msg = { type: 'release', term: this.node.term, resource: name, token: use.token }
    this.node.toCoordinator({ ...msg, ...use.held } as CentralizedMessage, ctx)
  }

  /** A kept grant that ended at the coordinator (revoked, stolen): dropped, nothing sent. */
  private dropKept(name: string, use: Use, ctx: CentralizedCtx): void {
    for (const key of [GIVE_BACK, LEASE, RENEW]) ctx.cancelTimer(key + name)
    use.state = 'idle'
    use.left = 0
  }

  /**
   * Answers a coordinator's RECOVER of incarnation `epoch`: what this node holds and what it waits
   * for. An `epoch` of 0 (a restarted member that knows nothing) asks the coordinator for RECOVER.
   */
  sync(epoch: number, ctx: CentralizedCtx): void {
    const held: Held[] = []
    const wanted: Wanted[] = []
    for (const [name, use] of [...this.uses].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      // A kept grant is still the coordinator's holder until its RELEASE (its timer sends it). The
      // claim carries the grant's token: a coordinator that learns of it this way has not
      // reserved the rest of its burst, so no more entries are made on it.
      if (use.state === 'held' || use.state === 'kept') {
        held.push({ resource: name, token: use.token, ...use.held })
        use.left = 0
      }
      if (use.state === 'pending')
        wanted.push({ resource: name, seq: use.seq, at: ctx.monotonic(), ...use.asks[0] })
    }
    const sync = { type: 'sync', term: this.node.term, epoch, held, wanted }
    this.node.toCoordinator({ ...sync, ...this.node.group.stamp() } as CentralizedMessage, ctx)
  }

  /** This node's view leaves it out: every acquire that waits is dropped (`not-in-view`). */
  leftOut(ctx: CentralizedCtx): void {
    for (const [name, use] of [...this.uses].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (use.state === 'pending') {
        for (const key of [ANSWER, RETRY, RESEND]) ctx.cancelTimer(key + name)
        use.state = 'idle'
      }
      if (use.state === 'kept') this.giveBack(name, use, ctx)
      for (const _ of use.asks.splice(0)) {
        ctx.emit({ type: 'not-in-view', resource: name, view: this.node.group.view })
      }
    }
  }

  /** A new coordinator is known: waiting requests go to it at once (rule 3). */
  coordinatorChanged(ctx: CentralizedCtx): void {
    for (const [name, use] of [...this.uses].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (use.state !== 'pending') continue
      use.refusals = 0
      ctx.cancelTimer(RETRY + name)
      this.sendRequest(name, use, ctx)
    }
  }

  onMessage(from: NodeId, msg: CentralizedMessage, ctx: CentralizedCtx): void {
    if (msg.type === 'lock-state') {
      // Nothing kept: the caller matches the answer by its `id` (and gives up on its own timer).
      ctx.emit(lockStateEvent(msg))
      return
    }
    if (
      msg.type !== 'grant' &&
      msg.type !== 'denied' &&
      msg.type !== 'renewed' &&
      msg.type !== 'revoked' &&
      msg.type !== 'stolen' &&
      msg.type !== 'refused'
    )
      return
    const use = this.uses.get(msg.resource)
    switch (msg.type) {
      case 'grant':
        // A copy of what it holds (or keeps).
        if ((use?.state === 'held' || use?.state === 'kept') && use.token === msg.token) return
        if (use?.state !== 'pending' || use.seq !== msg.seq) {
          // Not waiting for it (a duplicate): give it straight back so the resource is not stuck.
          ctx.emit({ type: 'ignored', from, reason: `unexpected grant of ${msg.resource}` })
          this.node.toCoordinator(
            {
              type: 'release',
              term: msg.term,
              resource: msg.resource,
              token: msg.token,
              ...holdOf(msg),
            },
            ctx,
          )
          return
        }
        this.enter(msg.resource, use, msg.token, msg.at, msg.burst ?? 1, ctx)
        return
      case 'denied': {
        if (use?.state !== 'pending' || use.seq !== msg.seq) return
        ctx.cancelTimer(ANSWER + msg.resource)
        const { retryBaseMs, retryMaxMs } = this.node.settings
        const cap = Math.min(retryMaxMs, retryBaseMs * 2 ** use.refusals++)
        // Jitter from ctx.random(): refused clients do not all come back at once.
        const retryInMs = cap / 2 + (ctx.random() * cap) / 2
        ctx.emit({ type: 'denied', resource: msg.resource, retryInMs })
        ctx.setTimer(RETRY + msg.resource, retryInMs)
        return
      }
      case 'renewed': {
        const lease = this.node.settings.lease
        if (lease === undefined || use === undefined || use.token !== msg.token) return
        if (use.state !== 'held' && use.state !== 'kept') return
        const now = ctx.monotonic()
        if (now >= use.leaseUntil) {
          // Its lease ran out before this renewal was handled (a pause: the timer that ends it
          // may come later in the backlog): it holds nothing, whatever the renewal says.
          if (use.state === 'kept') this.giveBack(msg.resource, use, ctx)
          else this.lose(msg.resource, use, 'expired', ctx)
          return
        }
        // Counted from when the renewal was sent: the coordinator's count started later.
        const until = msg.at + lease.ms
        if (until > use.leaseUntil) {
          use.leaseUntil = until
          ctx.setTimer(LEASE + msg.resource, until - now)
          if (use.state === 'kept') return // nobody holds on it now: no event
          ctx.emit({
            type: 'lease-renewed',
            resource: msg.resource,
            token: use.entry,
            validForMs: until - now,
          })
        }
        return
      }
      case 'revoked':
        if (use?.state === 'held' && use.token === msg.token)
          this.lose(msg.resource, use, 'revoked', ctx)
        if (use?.state === 'kept' && use.token === msg.token) this.dropKept(msg.resource, use, ctx)
        return
      case 'stolen': {
        // Acknowledged whatever this node's state: the stealer waits for it, and a STOLEN sent
        // again (or duplicated) finds the entry over already.
        const ack: CentralizedMessage = {
          type: 'stolen-ack',
          term: msg.term,
          resource: msg.resource,
          token: msg.token,
        }
        if (use?.state === 'held' && use.token === msg.token) {
          // Left before the acknowledgement goes; a victim that still wants it asks after.
          this.lose(msg.resource, use, 'stolen', ctx, () => this.node.toCoordinator(ack, ctx))
          return
        }
        if (use?.state === 'kept' && use.token === msg.token) this.dropKept(msg.resource, use, ctx)
        if (use?.state === 'pending' && use.seq === msg.seq) {
          // Stolen before its GRANT came (links reorder): ask again under a new seq, so that
          // GRANT, when it comes, is given back instead of entered.
          ctx.cancelTimer(RETRY + msg.resource)
          this.node.toCoordinator(ack, ctx)
          this.ask(msg.resource, use, ctx)
          return
        }
        this.node.toCoordinator(ack, ctx)
        return
      }
      case 'refused': {
        if (use?.state !== 'pending' || use.seq !== msg.seq) return
        // Nothing waits: the acquire is answered by this event and forgotten.
        ctx.cancelTimer(ANSWER + msg.resource)
        ctx.cancelTimer(RETRY + msg.resource)
        ctx.cancelTimer(RESEND + msg.resource)
        const want = use.asks.shift()!
        use.state = 'idle'
        if (msg.reason === 'unavailable') ctx.emit({ type: 'unavailable', resource: msg.resource })
        else {
          const permits = want.permits ?? { take: 1, of: 1 }
          ctx.emit({ type: 'limit-mismatch', resource: msg.resource, permits, limit: msg.limit })
        }
        if (use.asks.length > 0) this.ask(msg.resource, use, ctx)
        return
      }
    }
  }

  /** Returns false when the key is not this role's. */
  onTimer(key: string, ctx: CentralizedCtx): boolean {
    const at = key.indexOf(':')
    const kind = key.slice(0, at + 1)
    const name = key.slice(at + 1)
    const use = this.uses.get(name)
    switch (kind) {
      case ANSWER:
        if (use?.state === 'pending' && this.reported !== this.node.term) {
          this.reported = this.node.term
          // No answer is not a refusal: keep the request until a new coordinator is known.
          ctx.emit({
            type: 'coordinator-unreachable',
            coordinator: this.node.coordinator,
            term: this.node.term,
          })
        }
        return true
      case RETRY:
      case RESEND:
        if (use?.state === 'pending') this.sendRequest(name, use, ctx)
        return true
      case GIVE_BACK:
        if (use?.state === 'kept') this.giveBack(name, use, ctx)
        return true
      case RENEW:
        if (use?.state === 'kept' && ctx.monotonic() >= use.leaseUntil)
          this.giveBack(name, use, ctx)
        else if (use?.state === 'held' && ctx.monotonic() >= use.leaseUntil) {
          // Woken after its lease ended (a pause): the timer that ends it may not have come yet.
          this.lose(name, use, 'expired', ctx)
        } else if (use?.state === 'held' || use?.state === 'kept') {
          this.node.toCoordinator(
            {
              type: 'renew',
              term: this.node.term,
              resource: name,
              token: use.token,
              at: ctx.monotonic(), // a duration's start: never the wall clock, which can step
            },
            ctx,
          )
          ctx.setTimer(RENEW + name, this.node.settings.lease!.renewEveryMs)
        }
        return true
      case LEASE:
        if (use?.state === 'held') this.lose(name, use, 'expired', ctx)
        if (use?.state === 'kept') this.giveBack(name, use, ctx) // frees it at once, if still held
        return true
      default:
        return false
    }
  }

  private use(name: string): Use {
    let use = this.uses.get(name)
    if (use === undefined) {
      use = {
        asks: [],
        state: 'idle',
        held: {},
        seq: 0,
        token: 0,
        entry: 0,
        left: 0,
        refusals: 0,
        leaseUntil: 0,
      }
      this.uses.set(name, use)
    }
    return use
  }

  private ask(name: string, use: Use, ctx: CentralizedCtx): void {
    use.state = 'pending'
    use.seq = ++this.seq
    use.refusals = 0
    this.sendRequest(name, use, ctx)
  }

  private sendRequest(name: string, use: Use, ctx: CentralizedCtx): void {
    this.armAnswer(name, ctx)
    // Sent again while it waits: a REQUEST or GRANT lost (a partition) must not leave it waiting
    // for good. The coordinator queues it once.
    if (this.node.coordinator !== ctx.self)
      ctx.setTimer(RESEND + name, this.node.settings.resendEveryMs)
    this.node.toCoordinator(
      {
        type: 'request',
        term: this.node.term,
        resource: name,
        seq: use.seq,
        at: ctx.monotonic(),
        ...use.asks[0],
      },
      ctx,
    )
  }

  /** 'deny' only: a coordinator that refuses answers; one that says nothing may be dead. */
  private armAnswer(name: string, ctx: CentralizedCtx): void {
    if (this.node.settings.whenBusy === 'deny' && this.node.coordinator !== ctx.self) {
      ctx.setTimer(ANSWER + name, this.node.settings.answerTimeoutMs)
    }
  }

  /**
   * `at`: when this node sent the request copy the GRANT answered (its monotonic clock); `burst`:
   * how many entries the grant covers.
   */
  private enter(
    name: string,
    use: Use,
    token: number,
    at: number,
    burst: number,
    ctx: CentralizedCtx,
  ): void {
    const lease = this.node.settings.lease
    const now = ctx.monotonic()
    // Counted from when the answered request left, before the coordinator's count began: the
    // GRANT may have been slow, or waited while this node was paused.
    const until = at + (lease?.ms ?? 0)
    if (lease !== undefined && now >= until) {
      // Too old to enter on. The request goes again (same seq, a fresh `at`): a coordinator that
      // still counts this node as the holder answers with a fresh GRANT; one that moved on (its
      // count ran out meanwhile) queues the request again.
      ctx.emit({ type: 'grant-late', resource: name, token })
      this.sendRequest(name, use, ctx)
      return
    }
    ctx.cancelTimer(ANSWER + name)
    ctx.cancelTimer(RESEND + name)
    use.state = 'held'
    use.token = token
    use.entry = token
    use.held = holdOf(use.asks.shift()!)
    use.left = Math.max(1, burst) - 1
    if (lease === undefined) {
      ctx.emit({ type: 'acquired', resource: name, token, ...use.held })
      return
    }
    use.leaseUntil = until
    ctx.setTimer(LEASE + name, until - now)
    ctx.setTimer(RENEW + name, Math.min(lease.renewEveryMs, (until - now) / 2))
    ctx.emit({ type: 'acquired', resource: name, token, ...use.held, leaseMs: until - now })
  }

  /** Returns how it held (for the RELEASE), forgotten here. */
  private leave(name: string, use: Use, ctx: CentralizedCtx): Hold {
    const held = use.held
    use.state = 'idle'
    use.held = {}
    ctx.cancelTimer(LEASE + name)
    ctx.cancelTimer(RENEW + name)
    use.left = 0
    ctx.emit({ type: 'released', resource: name, token: use.entry })
    return held
  }

  /** The lease ran out or was revoked: the node stops holding (`released` follows `lease-lost`). */
  private lose(
    name: string,
    use: Use,
    reason: 'expired' | 'revoked' | 'stolen',
    ctx: CentralizedCtx,
    /** Sent once the entry is left, before a waiting acquire asks again. */
    then?: () => void,
  ): void {
    ctx.emit({ type: 'lease-lost', resource: name, token: use.entry, reason })
    const held = this.leave(name, use, ctx)
    then?.()
    if (reason === 'expired') {
      // Frees the resource at once if the coordinator still thinks this node holds it.
      this.node.toCoordinator(
        { type: 'release', term: this.node.term, resource: name, token: use.token, ...held },
        ctx,
      )
    }
    if (use.asks.length > 0) this.ask(name, use, ctx)
  }
}
