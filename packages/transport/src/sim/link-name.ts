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

/**
 * The pair of nodes a message travels between, with what names it: shared by its messages. The
 * names are made when first asked (a run without explorer or trace never asks): a network of 100
 * nodes talking all to all has 9,900 routes.
 */
export class Route implements LinkName {
  /** The link's state in its table, while the table's `generation` is this one (see `LinkTable.stateOn`). */
  linkState: LinkState | undefined = undefined
  generation = -1
  private name: string | undefined = undefined
  private nameHash: Hash64 | undefined = undefined
  private prefix: string | undefined = undefined

  constructor(
    readonly from: SimNode,
    readonly to: SimNode,
  ) {}

  /** `from>to`. */
  get text(): string {
    this.name ??= `${String(this.from.id)}>${String(this.to.id)}`
    return this.name
  }

  get hash(): Hash64 {
    this.nameHash ??= hashText(this.text)
    return this.nameHash
  }

  /** `m:from>to#`: a message's key is this and its number on the link. */
  get keyPrefix(): string {
    this.prefix ??= `m:${this.text}#`
    return this.prefix
  }
}

/** The route from -> to, kept by the sender under the receiver's id. */
export function routeOf(from: SimNode, to: SimNode): Route {
  let route = from.routes.get(to.id)
  if (route === undefined) {
    route = new Route(from, to)
    from.routes.set(to.id, route)
  }
  return route
}
