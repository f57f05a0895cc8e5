import { isNonNegInt as count, messageParser } from '@sd/transport'

/**
 * The wire messages of the bully algorithm. Every one carries a term, so that terms spread: for
 * COORDINATOR and HEARTBEAT the term of the sender's leadership, for the others the highest term
 * the sender has seen.
 */
export type BullyMessage =
  /** To every better candidate: "I am holding an election; are you alive?" */
  | { type: 'election'; term: number }
  /** The answer of a better candidate: it takes the election over. */
  | { type: 'ok'; term: number }
  /** A winner announces its leadership of `term` (also sent again by a live leader to an election's initiator). */
  | { type: 'coordinator'; term: number }
  | { type: 'heartbeat'; term: number }
  /** A leader steps down from `term`. */
  | { type: 'resign'; term: number }
  /** The answer to a COORDINATOR or HEARTBEAT of an older term: a newer one exists. */
  | { type: 'newer'; term: number }

/** The message, or why it is not one (peers' messages are never trusted to be well formed). */
export const parseMessage = messageParser<BullyMessage>({
  election: { term: count },
  ok: { term: count },
  coordinator: { term: count },
  heartbeat: { term: count },
  resign: { term: count },
  newer: { term: count },
})
