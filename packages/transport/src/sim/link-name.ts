/**
 * A directed link's name, `from>to`, made once per pair of nodes: the explorer names links state
 * after state (choices, state hashes), and building the string each time was garbage.
 */
import { type Hash64, hashText } from '../hash64.js'
import type { SimNode } from './sim-node.js'

/** A link's name as the fingerprint writes it, and its hash. */
export interface LinkName {
  text: string
  hash: Hash64
}

const linkNames = new WeakMap<SimNode, Map<SimNode, LinkName>>()

export function linkName(from: SimNode, to: SimNode): LinkName {
  let byTo = linkNames.get(from)
  if (byTo === undefined) {
    byTo = new Map()
    linkNames.set(from, byTo)
  }
  let name = byTo.get(to)
  if (name === undefined) {
    const text = `${String(from.id)}>${String(to.id)}`
    name = { text, hash: hashText(text) }
    byTo.set(to, name)
  }
  return name
}
