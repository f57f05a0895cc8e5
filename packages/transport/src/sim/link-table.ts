import type { NodeId } from '../ids.js'
import type { Route } from './link-name.js'
import {
  DEFAULT_LINK,
  type LinkSettings,
  type LinkState,
  type ResolvedLink,
  resolveLink,
} from './links.js'

/**
 * Every directed link of a network: the default settings, the per-link ones, and the state of
 * each link that carried a message.
 */
export class LinkTable {
  private defaultLink: ResolvedLink
  private readonly overrides = new Map<NodeId, Map<NodeId, ResolvedLink>>()
  private readonly states = new Map<NodeId, Map<NodeId, LinkState>>()
  /** The link states in the order they were made (what a checkpoint walks). */
  private made: Array<{ from: NodeId; to: NodeId; state: LinkState }> = []
  /** `save().overrides`, until an override changes. */
  private savedOverrides: LinkTableState['overrides'] | undefined
  /** Counts `load`s: a route's cached link state is good while it was looked up in this one. */
  private generation = 0

  constructor(settings: LinkSettings) {
    this.defaultLink = resolveLink(DEFAULT_LINK, settings, 'network')
  }

  /** The state of the link from -> to, made on its first message. */
  state(from: NodeId, to: NodeId): LinkState {
    let row = this.states.get(from)
    if (row === undefined) {
      row = new Map()
      this.states.set(from, row)
    }
    let state = row.get(to)
    if (state === undefined) {
      const override = this.overrides.get(from)?.get(to)
      state = {
        config: override ?? this.defaultLink,
        overridden: override !== undefined,
        lastArrival: 0,
        sent: 0,
      }
      row.set(to, state)
      this.made.push({ from, to, state })
    }
    return state
  }

  /** `state` of a route's ends, cached in the route (a send looks it up once a `load`). */
  stateOn(route: Route): LinkState {
    if (route.generation !== this.generation) {
      route.linkState = this.state(route.from.id, route.to.id)
      route.generation = this.generation
    }
    return route.linkState!
  }

  /** The state of the link from -> to if it carried a message. */
  existing(from: NodeId, to: NodeId): LinkState | undefined {
    return this.states.get(from)?.get(to)
  }

  /** Every setting and link state, for a checkpoint (`load` puts them back). */
  save(): LinkTableState {
    const made = this.made
    // Flat, per link in the order made: from, to, config, overridden, lastArrival, sent.
    const states: LinkTableState['states'] = new Array(made.length * 6)
    for (let i = 0; i < made.length; i++) {
      const { from, to, state } = made[i]!
      states[6 * i] = from
      states[6 * i + 1] = to
      states[6 * i + 2] = state.config
      states[6 * i + 3] = state.overridden
      states[6 * i + 4] = state.lastArrival
      states[6 * i + 5] = state.sent
    }
    if (this.savedOverrides === undefined) {
      const overrides: LinkTableState['overrides'] = []
      for (const [from, row] of this.overrides)
        for (const [to, link] of row) overrides.push([from, to, link])
      this.savedOverrides = overrides
    }
    return { defaultLink: this.defaultLink, overrides: this.savedOverrides, states }
  }

  load(saved: LinkTableState): void {
    this.generation++ // link states may be dropped or replaced
    this.defaultLink = saved.defaultLink
    if (saved.overrides !== this.savedOverrides) {
      this.overrides.clear()
      for (const [from, to, link] of saved.overrides) rowOf(this.overrides, from).set(to, link)
      this.savedOverrides = saved.overrides
    }
    const flat = saved.states
    const count = flat.length / 6
    const made = this.made
    // Mostly the links saved are the first ones made now: put them back in place, drop the rest.
    let same = made.length >= count
    for (let i = 0; same && i < count; i++)
      same = made[i]!.from === flat[6 * i] && made[i]!.to === flat[6 * i + 1]
    if (!same) {
      this.states.clear()
      this.made = []
    } else {
      for (let i = count; i < made.length; i++) this.states.get(made[i]!.from)!.delete(made[i]!.to)
      made.length = count
    }
    for (let i = 0; i < count; i++) {
      const state: LinkState = same ? made[i]!.state : ({} as LinkState)
      state.config = flat[6 * i + 2] as ResolvedLink
      state.overridden = flat[6 * i + 3] as boolean
      state.lastArrival = flat[6 * i + 4] as number
      state.sent = flat[6 * i + 5] as number
      if (!same) {
        const from = flat[6 * i] as NodeId
        const to = flat[6 * i + 1] as NodeId
        rowOf(this.states, from).set(to, state)
        this.made.push({ from, to, state })
      }
    }
  }

  /** Whether some link loses or duplicates messages at random (the network's PRNG decides). */
  randomFaults(): boolean {
    const random = (l: ResolvedLink) => l.loss > 0 || l.duplicate > 0
    if (random(this.defaultLink)) return true
    for (const row of this.overrides.values())
      for (const l of row.values()) if (random(l)) return true
    return false
  }

  /** Changes every link that has no per-link settings. */
  setDefault(settings: LinkSettings): void {
    this.defaultLink = resolveLink(this.defaultLink.settings, settings, 'default link')
    for (const row of this.states.values()) {
      for (const state of row.values()) if (!state.overridden) state.config = this.defaultLink
    }
  }

  /** Changes the directed link from -> to. */
  override(from: NodeId, to: NodeId, settings: LinkSettings): void {
    let row = this.overrides.get(from)
    if (!row) {
      row = new Map()
      this.overrides.set(from, row)
    }
    const base = row.get(to)?.settings ?? this.defaultLink.settings
    const resolved = resolveLink(
      base,
      settings,
      `link ${JSON.stringify(from)} -> ${JSON.stringify(to)}`,
    )
    row.set(to, resolved)
    this.savedOverrides = undefined
    const state = this.existing(from, to)
    if (state) {
      state.config = resolved
      state.overridden = true
    }
  }
}

/** A `LinkTable` as a checkpoint keeps it (resolved settings are never mutated: shared). */
export interface LinkTableState {
  defaultLink: ResolvedLink
  overrides: Array<[NodeId, NodeId, ResolvedLink]>
  /** Six entries a link: from, to, config, overridden, lastArrival, sent. */
  states: Array<NodeId | ResolvedLink | boolean | number>
}

function rowOf<V>(table: Map<NodeId, Map<NodeId, V>>, from: NodeId): Map<NodeId, V> {
  let row = table.get(from)
  if (row === undefined) {
    row = new Map()
    table.set(from, row)
  }
  return row
}
