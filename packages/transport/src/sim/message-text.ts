/**
 * Messages as canonical text, cached by message: the explorer names each choice by its message and
 * fingerprints what is in flight, state after state, and a message does not change once sent.
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
