/**
 * Messages as canonical text, cached by message: key fingerprints and the liveness graph's pending
 * tasks write them state after state, and a message does not change once sent. (The stateful
 * search's hot path does without: it hashes messages as data and keeps each choice's label.)
 */
import { canonicalKey } from '../canonical.js'

const cache = new WeakMap<object, string>()

/** `canonicalKey(msg)`, computed once per message object. */
export function messageText(msg: unknown): string {
  if (msg === null || typeof msg !== 'object') return canonicalKey(msg, 'message')
  let text = cache.get(msg)
  if (text === undefined) {
    text = canonicalKey(msg, 'message')
    cache.set(msg, text)
  }
  return text
}
