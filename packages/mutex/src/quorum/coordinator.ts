import type { NodeId } from '@sd/transport'
import type { GrantStore } from './grants.js'
import type { Io } from './io.js'
import type { QuorumMessage } from './messages.js'

type Request = Extract<QuorumMessage, { type: 'request' }>
type Release = Extract<QuorumMessage, { type: 'release' }>

/**
 * A coordinator grants each resource to one client at a time and answers the others DENIED at
 * once (it does not queue): a refusal is told from a crash without waiting, and a client holding
 * part of a quorum gives it back instead of waiting on the rest, so split grants cannot deadlock.
 */
export class Coordinator {
  constructor(private readonly grants: () => GrantStore) {}

  onRequest(from: NodeId, msg: Request, io: Io): void {
    const store = this.grants()
    const { resource, session, attempt, token } = msg
    const holder = store.holder(resource)
    const reply = { resource, session, attempt }
    if (holder !== undefined && holder.client === from && holder.session === session) {
      if (holder.attempt === attempt) {
        // A repeated request (a duplicate): the same answer.
        io.send(from, { type: 'grant', ...reply, counter: holder.counter })
        return
      }
      if (attempt < holder.attempt) {
        io.send(from, { type: 'deny', ...reply }) // an old round of the holder: already over
        return
      }
      // A later round of the same client: it gave up or left the earlier one (its release may
      // still be on the way), so that grant is over.
    } else if (holder !== undefined && holder.client !== from) {
      io.send(from, { type: 'deny', ...reply })
      return
    }
    // Free, or held by an earlier round or an earlier life (another session) of this client,
    // which restarted and forgot it.
    const counter = Math.max(store.counter(resource), token) + 1
    store.set(resource, { client: from, session, attempt, counter }, counter)
    io.send(from, { type: 'grant', ...reply, counter })
  }

  onRelease(from: NodeId, msg: Release, io: Io): void {
    const store = this.grants()
    const { resource, session, attempt, token } = msg
    const holder = store.holder(resource)
    const counter = Math.max(store.counter(resource), token)
    if (
      holder !== undefined &&
      holder.client === from &&
      holder.session === session &&
      holder.attempt === attempt
    ) {
      store.set(resource, undefined, counter)
      return
    }
    // Not the grant this coordinator holds: a late release of a round already superseded, or of a
    // grant forgotten in a restart. Still move the counter past the token it reports.
    if (counter > store.counter(resource)) store.set(resource, holder, counter)
    io.emit({ type: 'ignored', from, reason: `release of ${resource}: not the grant held here` })
  }
}
