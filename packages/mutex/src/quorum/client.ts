import type { NodeId } from '@sd/transport'
import { idMap, idSet, nameMap, type Snapshot, snapshotFields } from '../snapshot.js'
import type { QuorumMutexMessage } from './messages.js'
import type { QuorumMutexSettings } from './options.js'
import type { QuorumMutexCtx, Send } from './protocol.js'
import { tokenOf } from './tokens.js'

type Answer = Extract<QuorumMutexMessage, { type: 'grant' | 'deny' }>
type Query = Extract<QuorumMutexMessage, { type: 'query' }>

/** A client's state for one resource it wants or holds. */
interface Want {
  /** Acquire requests not yet served, the current one included. */
  waiting: number
  phase: 'collecting' | 'held' | 'backoff'
  attempt: number
  /** Failed rounds of the current acquire (sets the backoff window). */
  failures: number
  /** Coordinator to grant counter, for this round. */
  granted: Map<NodeId, number>
  denied: Set<NodeId>
  token: number
}

const timeoutKey = (resource: string) => `timeout:${resource}`
const backoffKey = (resource: string) => `backoff:${resource}`

/**
 * A client asks every coordinator, enters with m grants, and otherwise (too many denials to reach
 * m, or no m grants within the timeout) gives back what it got and tries again after a random
 * backoff. It releases to every coordinator that granted, once: a coordinator that misses the
 * release (or whose grant never arrived) asks later (QUERY), and is answered with a release then.
 */
export class Client {
  private readonly wants = new Map<string, Want>()
  /** Per resource, the largest token this client entered with: coordinators move past it. */
  private readonly lastTokens = new Map<string, number>()
  private lastAttempt = 0

  constructor(
    private readonly settings: QuorumMutexSettings,
    private readonly session: number,
    /** This node's rank among the members: the low bits of its tokens. */
    private readonly rank: number,
    private readonly send: Send,
  ) {}

  /** Its state as canonical plain data (see `Protocol.snapshot`). */
  snapshot(): Snapshot {
    return {
      session: this.session,
      rank: this.rank,
      lastAttempt: this.lastAttempt,
      lastTokens: nameMap(this.lastTokens, (t) => t),
      wants: nameMap(this.wants, (w) => ({
        waiting: w.waiting,
        phase: w.phase,
        attempt: w.attempt,
        failures: w.failures,
        // Given back with one and the same RELEASE each: only membership counts.
        granted: idMap(w.granted, (counter) => counter),
        denied: idSet(w.denied),
        token: w.token,
      })),
    }
  }

  /** The client `snapshot()` gave, live again (for the protocol's `restore()`). */
  static restored(settings: QuorumMutexSettings, send: Send, snapshot: Snapshot): Client {
    const fields = ['session', 'rank', 'lastAttempt', 'lastTokens', 'wants'] as const
    const s = snapshotFields(snapshot, 'quorumMutex()', fields)
    const client = new Client(settings, s.session as number, s.rank as number, send)
    client.lastAttempt = s.lastAttempt as number
    for (const [name, t] of s.lastTokens as Array<[string, number]>) client.lastTokens.set(name, t)
    type Saved = Omit<Want, 'granted' | 'denied'> & {
      granted: [NodeId, number][]
      denied: NodeId[]
    }
    for (const [name, w] of s.wants as Array<[string, Saved]>) {
      const { waiting, phase, attempt, failures, token } = w
      const [granted, denied] = [new Map(w.granted), new Set(w.denied)]
      client.wants.set(name, { waiting, phase, attempt, failures, granted, denied, token })
    }
    return client
  }

  acquire(resource: string, ctx: QuorumMutexCtx): void {
    const want = this.wants.get(resource)
    if (want !== undefined) {
      want.waiting++ // served after the current one is released
      return
    }
    const fresh: Want = {
      waiting: 1,
      phase: 'collecting',
      attempt: 0,
      failures: 0,
      granted: new Map(),
      denied: new Set(),
      token: 0,
    }
    this.wants.set(resource, fresh)
    this.ask(resource, fresh, ctx)
  }

  release(resource: string, ctx: QuorumMutexCtx): void {
    const want = this.wants.get(resource)
    if (want?.phase !== 'held') {
      ctx.emit({ type: 'ignored', from: ctx.self, reason: `release of ${resource}: not held` })
      return
    }
    this.giveBack(resource, want, ctx)
    ctx.emit({ type: 'released', resource, token: want.token })
    want.waiting--
    if (want.waiting === 0) {
      this.wants.delete(resource)
      return
    }
    want.failures = 0
    this.ask(resource, want, ctx)
  }

  onAnswer(from: NodeId, msg: Answer, ctx: QuorumMutexCtx): void {
    if (!this.isCurrent(msg)) {
      // An answer to a round that is over (or to an earlier life of this node): a grant in it is
      // given straight back, so the coordinator is not left bound to nobody.
      if (msg.type === 'grant') {
        const token = this.lastTokens.get(msg.resource) ?? 0
        this.send(from, { ...roundOf(msg), type: 'release', token }, ctx)
      }
      return
    }
    const want = this.wants.get(msg.resource)!
    if (msg.type === 'grant') {
      want.granted.set(from, msg.counter)
      // A grant after entering (beyond m) is kept and given back on release.
      if (want.phase === 'collecting' && want.granted.size >= this.settings.m) {
        this.enter(msg.resource, want, ctx)
      }
      return
    }
    if (want.phase !== 'collecting') return
    want.denied.add(from)
    if (this.settings.n - want.denied.size < this.settings.m) this.fail(msg.resource, want, ctx)
  }

  /**
   * A coordinator asks whether a round it granted is still in use: if the round is over (released,
   * given up, of an earlier life), its grant is given back now; if not, nothing is said.
   */
  onQuery(from: NodeId, msg: Query, ctx: QuorumMutexCtx): void {
    if (this.isCurrent(msg)) return
    const token = this.lastTokens.get(msg.resource) ?? 0
    this.send(from, { ...roundOf(msg), type: 'release', token }, ctx)
  }

  /** The round a message is about is the one this client collects or holds with now. */
  private isCurrent(msg: { resource: string; session: number; attempt: number }): boolean {
    const want = this.wants.get(msg.resource)
    return (
      want !== undefined &&
      want.phase !== 'backoff' &&
      msg.session === this.session &&
      msg.attempt === want.attempt
    )
  }

  onTimer(key: string, ctx: QuorumMutexCtx): boolean {
    for (const [resource, want] of this.wants) {
      if (key === timeoutKey(resource) && want.phase === 'collecting') {
        this.fail(resource, want, ctx)
        return true
      }
      if (key === backoffKey(resource) && want.phase === 'backoff') {
        this.ask(resource, want, ctx)
        return true
      }
    }
    return false
  }

  private ask(resource: string, want: Want, ctx: QuorumMutexCtx): void {
    want.phase = 'collecting'
    want.attempt = ++this.lastAttempt
    want.granted = new Map()
    want.denied = new Set()
    const msg = {
      type: 'request',
      resource,
      session: this.session,
      attempt: want.attempt,
      token: this.lastTokens.get(resource) ?? 0,
    } as const
    ctx.setTimer(timeoutKey(resource), this.settings.timeoutMs)
    for (const c of this.settings.coordinators) this.send(c, msg, ctx)
  }

  private enter(resource: string, want: Want, ctx: QuorumMutexCtx): void {
    ctx.cancelTimer(timeoutKey(resource))
    want.phase = 'held'
    // The largest counter among the grants: above the last holder's wherever the two quorums meet
    // (the coordinators there moved past it on its release); then this client's rank, so no other
    // client gets the same token.
    want.token = tokenOf(Math.max(...want.granted.values()), this.rank)
    this.lastTokens.set(resource, Math.max(want.token, this.lastTokens.get(resource) ?? 0))
    ctx.emit({ type: 'grants', resource, count: want.granted.size, of: this.settings.n })
    ctx.emit({ type: 'acquired', resource, token: want.token })
  }

  private fail(resource: string, want: Want, ctx: QuorumMutexCtx): void {
    ctx.cancelTimer(timeoutKey(resource))
    this.giveBack(resource, want, ctx)
    want.failures++
    want.phase = 'backoff'
    const s = this.settings
    const window = Math.min(s.maxBackoffMs, s.backoffMs * 2 ** Math.min(want.failures - 1, 30))
    // Random, so two clients that split the grants do not collide again in step.
    const delay = 1 + ctx.random() * window
    ctx.emit({ type: 'backoff', resource, attempt: want.failures, delay })
    ctx.setTimer(backoffKey(resource), delay)
  }

  private giveBack(resource: string, want: Want, ctx: QuorumMutexCtx): void {
    const msg = {
      type: 'release',
      resource,
      session: this.session,
      attempt: want.attempt,
      token: this.lastTokens.get(resource) ?? 0,
    } as const
    for (const c of want.granted.keys()) this.send(c, msg, ctx)
    want.granted = new Map()
  }
}

const roundOf = (msg: Answer | Query) => ({
  resource: msg.resource,
  session: msg.session,
  attempt: msg.attempt,
})
