/**
 * The term, kept in stable storage so that it never goes back at a node, not even across a
 * restart: every leadership has a term above every term the node has seen.
 */
import { readStored, type StableStorage } from '@sd/transport'
import { termShape } from './stored.js'

const TERM_KEY = 'term'

/**
 * The highest term this node has seen (0 before any). A stored term that is not an integer >= 0
 * throws `StoredStateError` (ERR_STORED_STATE): read as 0, it would let the node vote again in
 * terms it already voted in.
 */
export function storedTerm(storage: StableStorage): number {
  return readStored(storage, TERM_KEY, termShape) ?? 0
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
