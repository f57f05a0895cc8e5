/**
 * The term, kept in stable storage so that it never goes back at a node, not even across a
 * restart: every leadership has a term above every term the node has seen.
 */
import type { StableStorage } from '@sd/transport'

const TERM_KEY = 'term'

/** The highest term this node has seen (0 before any). */
export function storedTerm(storage: StableStorage): number {
  const value = storage.get(TERM_KEY)
  return typeof value === 'number' ? value : 0
}

/** Records `term` if it is above what is stored; returns the stored term afterwards. */
export function observeTerm(storage: StableStorage, term: number): number {
  const known = storedTerm(storage)
  if (term > known) {
    storage.set(TERM_KEY, term)
    return term
  }
  return known
}

/** A term above every term seen, recorded before it is used. */
export function nextTerm(storage: StableStorage): number {
  const term = storedTerm(storage) + 1
  storage.set(TERM_KEY, term)
  return term
}
