import type { NodeId } from '../ids.js'
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
    }
    return state
  }

  /** The state of the link from -> to if it carried a message. */
  existing(from: NodeId, to: NodeId): LinkState | undefined {
    return this.states.get(from)?.get(to)
  }

  /** Every setting and link state, for a checkpoint (`load` puts them back). */
  save(): LinkTableState {
    const states: LinkTableState['states'] = []
    for (const [from, row] of this.states)
      for (const [to, s] of row) states.push([from, to, { ...s }])
    const overrides: LinkTableState['overrides'] = []
    for (const [from, row] of this.overrides)
      for (const [to, link] of row) overrides.push([from, to, link])
    return { defaultLink: this.defaultLink, overrides, states }
  }

  load(saved: LinkTableState): void {
    this.defaultLink = saved.defaultLink
    this.overrides.clear()
    for (const [from, to, link] of saved.overrides) rowOf(this.overrides, from).set(to, link)
    this.states.clear()
    for (const [from, to, s] of saved.states) rowOf(this.states, from).set(to, { ...s })
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
  states: Array<[NodeId, NodeId, LinkState]>
}

function rowOf<V>(table: Map<NodeId, Map<NodeId, V>>, from: NodeId): Map<NodeId, V> {
  let row = table.get(from)
  if (row === undefined) {
    row = new Map()
    table.set(from, row)
  }
  return row
}
