/**
 * A directed link's name, `from>to`, made once per pair of nodes: the explorer names links state
 * after state (choices, state hashes), and building the string each time was garbage. Each message
 * in flight points at its route instead of holding its ends, its link name and its key.
 */
import { type Hash64, hashText } from '../hash64.js'
import type { LinkState } from './links.js'
import type { SimNode } from './sim-node.js'

/** A link's name as the fingerprint writes it, and its hash. */
export interface LinkName {
  text: string
  hash: Hash64
}

/** The pair of nodes a message travels between, with what names it: shared by its messages. */
export interface Route extends LinkName {
  readonly from: SimNode
  readonly to: SimNode
  /** `m:from>to#`: a message's key is this and its number on the link. */
  readonly keyPrefix: string
  /** The link's state in its table, while the table's `generation` is this one (see `LinkTable.stateOn`). */
  linkState: LinkState | undefined
  generation: number
}

/** The route from -> to, kept by the sender under the receiver's id. */
export function routeOf(from: SimNode, to: SimNode): Route {
  let route = from.routes.get(to.id)
  if (route === undefined) {
    const text = `${String(from.id)}>${String(to.id)}`
    route = {
      text,
      hash: hashText(text),
      from,
      to,
      keyPrefix: `m:${text}#`,
      linkState: undefined,
      generation: -1,
    }
    from.routes.set(to.id, route)
  }
  return route
}
