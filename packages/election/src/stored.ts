/**
 * The shapes of everything the election protocols keep in stable storage. A stored value of
 * another shape (a damaged or foreign state file) is refused with `StoredStateError`
 * (ERR_STORED_STATE) when it is read: read as a default, it would let a node vote twice in a term
 * or announce a term that went back.
 */
import { type StoredShape, storedShapes } from '@sd/transport'

/** The highest term a node has seen. */
export const termShape = storedShapes.count

/** The majority mode's one vote of a term. */
export const voteShape = storedShapes.record({ term: storedShapes.count, for: storedShapes.nodeId })

/** The majority mode's latest announced leader. */
export const shownShape = storedShapes.record({
  term: storedShapes.count,
  leader: storedShapes.nodeId,
})

/** A flag that is only ever stored as `true` (a ring member took part once). */
export const startedShape: StoredShape<true> = {
  expected: 'true',
  is: (v): v is true => v === true,
}
