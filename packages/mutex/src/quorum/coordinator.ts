import type { NodeId } from '@sd/transport'
import { nameMap, type Snapshot, snapshotFields } from '../snapshot.js'
import type { Grant, GrantStore } from './grants.js'
import type { QuorumMutexMessage } from './messages.js'
import type { QuorumMutexCtx, Send } from './protocol.js'
import { counterOf } from './tokens.js'

type Request = Extract<QuorumMutexMessage, { type: 'request' }>
type Release = Extract<QuorumMutexMessage, { type: 'release' }>

/** When this coordinator last asked about (or gave) a grant: its clock reading, per resource. */
interface Asked {
  grant: Grant
  at: number
}

const sameRound = (a: Grant, b: Grant): boolean =>
  a.client === b.client && a.session === b.session && a.attempt === b.attempt

/**
 * A coordinator grants each resource to one client at a time and answers the others DENIED at
 * once (it does not queue): a refusal is told from a crash without waiting, and a client holding
 * part of a quorum gives it back instead of waiting on the rest, so split grants cannot deadlock.
 *
 * A grant ends only when its client gives it back: no lease, so no clock decides that a holder is
 * gone. A lost RELEASE, or a GRANT lost before the client saw it, would leave the grant bound to a
 * round that is over, so when the coordinator denies another client and has heard nothing about
 * its grant for `reclaimAfterMs` (on the monotonic clock), it asks the holder (QUERY); the holder
 * answers RELEASE if that round is over. Someone waiting keeps asking, so a grant left behind is
 * reclaimed as long as the holder is up and messages get through now and then.
 */
export class Coordinator {
  private readonly asked = new Map<string, Asked>()

  constructor(
    private readonly store: GrantStore,
    private readonly reclaimAfterMs: number,
    private readonly send: Send,
  ) {}

  /** Its volatile state as canonical plain data (the grants themselves: `GrantStore.snapshot`). */
  snapshot(): Snapshot {
    return {
      asked: nameMap(this.asked, (a) => ({
        grant: {
          client: a.grant.client,
          session: a.grant.session,
          attempt: a.grant.attempt,
          counter: a.grant.counter,
        },
        at: a.at,
      })),
    }
  }

  /** Takes on the state `snapshot()` gave (for the protocol's `restore()`). */
  restore(snapshot: Snapshot): void {
    const s = snapshotFields(snapshot, 'quorumMutex()', ['asked'])
    this.asked.clear()
    for (const [name, a] of s.asked as Array<[string, Asked]>)
      this.asked.set(name, { grant: { ...a.grant }, at: a.at })
  }

  onRequest(from: NodeId, msg: Request, ctx: QuorumMutexCtx): void {
    const store = this.store
    const { resource, session, attempt, token } = msg
    const holder = store.holder(resource, ctx.storage)
    const reply = { resource, session, attempt }
    if (holder !== undefined && holder.client === from && holder.session === session) {
      if (holder.attempt === attempt) {
        // A repeated request (a duplicate): the same answer.
        this.send(from, { type: 'grant', ...reply, counter: holder.counter }, ctx)
        return
      }
      if (attempt < holder.attempt) {
        this.send(from, { type: 'deny', ...reply }, ctx) // an old round of the holder: already over
        return
      }
      // A later round of the same client: it gave up or left the earlier one (its release may
      // still be on the way), so that grant is over.
    } else if (holder !== undefined && holder.client !== from) {
      this.send(from, { type: 'deny', ...reply }, ctx)
      this.askHolder(resource, holder, ctx)
      return
    }
    // Free, or held by an earlier round or an earlier life (another session) of this client,
    // which restarted and forgot it.
    const counter = Math.max(store.counter(resource, ctx.storage), counterOf(token)) + 1
    const grant = { client: from, session, attempt, counter }
    store.set(resource, grant, counter, ctx.storage)
    this.asked.set(resource, { grant, at: ctx.monotonic() })
    this.send(from, { type: 'grant', ...reply, counter }, ctx)
  }

  onRelease(from: NodeId, msg: Release, ctx: QuorumMutexCtx): void {
    const store = this.store
    const { resource, session, attempt, token } = msg
    const holder = store.holder(resource, ctx.storage)
    const counter = Math.max(store.counter(resource, ctx.storage), counterOf(token))
    if (
      holder !== undefined &&
      holder.client === from &&
      holder.session === session &&
      holder.attempt === attempt
    ) {
      store.set(resource, undefined, counter, ctx.storage)
      this.asked.delete(resource)
      return
    }
    // Not the grant this coordinator holds: a late release of a round already superseded, or of a
    // grant forgotten in a restart. Still move the counter past the token it reports.
    if (counter > store.counter(resource, ctx.storage))
      store.set(resource, holder, counter, ctx.storage)
    ctx.emit({ type: 'ignored', from, reason: `release of ${resource}: not the grant held here` })
  }

  /** Asks the holder about its round, at most once per `reclaimAfterMs` of silence. */
  private askHolder(resource: string, holder: Grant, ctx: QuorumMutexCtx): void {
    const now = ctx.monotonic()
    const last = this.asked.get(resource)
    if (last === undefined || !sameRound(last.grant, holder)) {
      // A grant remembered across a restart: its age is unknown, so it counts from now.
      this.asked.set(resource, { grant: holder, at: now })
      return
    }
    if (now - last.at < this.reclaimAfterMs) return
    last.at = now
    const { session, attempt } = holder
    this.send(holder.client, { type: 'query', resource, session, attempt }, ctx)
  }
}
