/**
 * The bully algorithm (Garcia-Molina, 1982), as the course texts give it, with terms.
 *
 * - A process that suspects the leader (heartbeat silence), is asked to (`{ type: 'start' }`) or
 *   (re)starts sends ELECTION to every better candidate (`priority`, then the higher id). If no OK
 *   comes within `okTimeoutMs`, it is the best live candidate: it takes a term above every term
 *   it has seen, emits `leader`, sends COORDINATOR to all, and heartbeats with that term. If an OK
 *   comes, it waits for a COORDINATOR, and starts again if none comes within
 *   `coordinatorTimeoutMs`.
 * - A process receiving ELECTION from a worse candidate answers OK and holds its own election
 *   (unless it runs one already). A live leader instead answers OK and sends its COORDINATOR again
 *   to the initiator: a wrong suspicion costs messages but no new term.
 * - COORDINATOR (or a heartbeat of a leader not yet known) of term t from L: a t below the highest
 *   term seen is stale, ignored and answered with NEWER; from a worse candidate while this node
 *   is alive, it bullies back (its own election, which it wins with a higher term); otherwise the
 *   node follows L and emits `leader` when leader or term changed. Silence from the leader:
 *   `leader-lost`, then an election.
 * - Every message carries a term; a leader that sees a term above its own steps down
 *   (`leader-lost`) and holds an election.
 *
 * Terms are kept in stable storage and owned by one member each (see ./terms.ts): the member of
 * rank r among n (by id) takes only terms r + 1 + k n. Bully has no vote, so two processes can
 * both announce themselves (a restarted process that missed the newest term, a timeout that
 * lied); owned terms still differ, so no term has two leaders and the term stays a fencing token.
 *
 * `{ type: 'resign' }` on the leader: it emits `leader-lost`, sends RESIGN to all, and stays out
 * (answers no ELECTION, starts none) until a new leader is announced, so the next best wins. The
 * resignation lasts for that one election and is volatile: a later election (or a restart of the
 * resigned node) may make it leader again. A `start` request ends it at once.
 *
 * Messages per election with the leader crashed (heartbeats aside): n when the second best
 * notices (one ELECTION to the crashed leader, then n - 1 COORDINATORs), n (n - 1) when the worst
 * notices (n (n - 1) / 2 ELECTIONs, (n - 1)(n - 2) / 2 OKs, n - 1 COORDINATORs).
 *
 * Safe only under its timing assumption: a message slower than the timeouts, or a partition,
 * makes two leaders at once (in different terms); the better one bullies the other once they
 * hear each other.
 */
import type { NodeId, ProtocolFactory } from '@sd/transport'
import type { ElectionRequest } from '../contract.js'
import type { BullyEvent } from './events.js'
import type { BullyMessage } from './messages.js'
import { BullyNode } from './node.js'
import { type BullyOptions, settingsOf } from './options.js'

export type { BullyEvent } from './events.js'
export type { BullyMessage } from './messages.js'
export type { BullyOptions } from './options.js'

/** A bully election protocol for one node; validates `options` at once (`ERR_INVALID_ARGUMENT`). */
export function bully(
  options?: BullyOptions,
): ProtocolFactory<BullyMessage, ElectionRequest, BullyEvent> {
  const settings = settingsOf(options)
  return (_self: NodeId) => new BullyNode(settings)
}
