/**
 * Symmetry reduction for the stateful search: when the scenario declares nodes interchangeable
 * (`ExploreScenario.symmetric`), a state and its image under a relabelling of those nodes have
 * the same futures up to that relabelling, so one is expanded for both. The key of a state is the
 * least canonical text of the state relabelled by every permutation within the groups (n! per
 * group of n: fine up to 5 or 6 nodes a group, refused above 6).
 *
 * Relabelling is structural. The simulator's own parts are renamed where the explorer knows ids
 * stand (node entries, `from>to` link names, timer owners, request keys, the history's nodes).
 * The protocol's data (snapshots, storage, messages, events, a custom history) is renamed by the
 * scenario's `relabel` hook, or else by a walk that renames strings equal to a string id of a
 * group, as values and as object keys. Numbers are never renamed by the walk: ids 1, 2, 3 cannot
 * be told apart from counters and timestamps, so a group with a number id needs the hook.
 *
 * Sleep sets are kept in the canonical state's naming: each choice's label is relabelled by the
 * permutation that gave the state its key, so a state met again under another naming compares
 * what was left asleep choice for choice.
 */

import { canonicalKey, hashKey } from '../canonical.js'
import { InvalidArgumentError } from '../errors.js'
import { compareNodeIds, type NodeId } from '../ids.js'
import type { Choice } from '../sim/control.js'
import type { SimFingerprint } from '../sim/fingerprint.js'
import type { Execution } from './execution.js'
import type { Token } from './token.js'
import type { ExploreOptions, ExploreScenario } from './types.js'

/** A renaming of node ids (identity outside the groups). */
export type Rename = (id: NodeId) => NodeId

/** What the stateful search reports of the symmetry it used. */
export interface SymmetryInfo {
  /** The groups of interchangeable nodes. */
  groups: NodeId[][]
  /** Relabellings tried per state (the product of the groups' n!). */
  permutations: number
  /** Concrete states met that another state's key stood for (states the reduction saved). */
  merged: number
}

const MAX_GROUP = 6

export class Symmetry {
  readonly info: SymmetryInfo
  private readonly renames: Rename[]
  private readonly byText = new Map<string, NodeId>()
  private readonly links = new Map<string, [NodeId, NodeId]>()
  /** Per canonical key, the concrete states (identity keys) met: for `merged`. */
  private readonly members = new Map<string, Set<string>>()

  private constructor(
    private readonly scenario: ExploreScenario,
    ids: readonly NodeId[],
    groups: NodeId[][],
  ) {
    for (const id of ids) this.byText.set(String(id), id)
    for (const a of ids) for (const b of ids) this.links.set(`${String(a)}>${String(b)}`, [a, b])
    this.renames = renamings(groups)
    this.info = { groups, permutations: this.renames.length, merged: 0 }
  }

  /** The scenario's symmetry, checked against the network and options; undefined if none. */
  static of(
    scenario: ExploreScenario,
    ids: readonly NodeId[],
    options: ExploreOptions,
  ): Symmetry | undefined {
    const declared = scenario.symmetric
    if (declared === undefined || declared === false) return undefined
    const groups = (declared === true ? [ids] : declared)
      .map((g) => [...g].sort(compareNodeIds))
      .filter((g) => g.length > 1)
    if (groups.length === 0) return undefined
    const seen = new Set<string>()
    for (const group of groups) {
      if (group.length > MAX_GROUP)
        throw new InvalidArgumentError(
          `explore: a symmetric group of ${group.length} nodes (${group.length}! relabellings per state); at most ${MAX_GROUP}`,
        )
      for (const id of group) {
        const text = JSON.stringify(id)
        if (!ids.includes(id)) throw new InvalidArgumentError(`explore: symmetric: no node ${text}`)
        if (seen.has(text)) throw new InvalidArgumentError(`explore: symmetric: ${text} twice`)
        seen.add(text)
        if (typeof id === 'number' && scenario.relabel === undefined)
          throw new InvalidArgumentError(
            `explore: symmetric node ${id} is a number: give the scenario a relabel hook (numbers in its data cannot be told apart from ids), or use string ids`,
          )
      }
      // Faults the explorer injects must treat a group alike, or relabelled states differ.
      for (const [name, list] of [
        ['crashable', options.crashable],
        ['pausable', options.pausable],
        ['steppable', options.steppable],
      ] as const) {
        if (list === undefined) continue
        const inside = group.filter((id) => list.includes(id)).length
        if (inside > 0 && inside < group.length)
          throw new InvalidArgumentError(
            `explore: ${name} splits the symmetric group ${JSON.stringify(group)}`,
          )
      }
    }
    if (scenario.liveness !== undefined)
      throw new InvalidArgumentError(
        'explore: symmetric scenarios with liveness goals are not supported (the lasso replays concrete names)',
      )
    return new Symmetry(scenario, ids, groups)
  }

  /**
   * The state's key (least text over the relabellings) and the labeller of its choices in that
   * naming; undefined when the network has no fingerprint.
   */
  key(exec: Execution): { key: string; label: (t: Token) => string } | undefined {
    const fp = exec.net.fingerprint()
    if (fp === undefined) return undefined
    const history = this.scenario.history
      ? this.scenario.history(exec.events)
      : exec.events.map(({ node, event }) => [node, event])
    // The scenario's side state, renamed as the protocol's data is.
    const side = this.scenario.sideState && { value: this.scenario.sideState.save(exec.net) }
    let best: string | undefined
    let bestRename: Rename = (id) => id
    let identity = ''
    for (const [i, rename] of this.renames.entries()) {
      const parts = [
        this.relabelFingerprint(fp, rename),
        exec.used,
        this.relabelHistory(history, rename),
      ]
      if (side !== undefined) parts.push(this.data(side.value, rename))
      const text = canonicalKey(parts, 'state')
      if (i === 0) identity = text
      if (best === undefined || text < best) {
        best = text
        bestRename = rename
      }
    }
    const key = hashKey(best!)
    let members = this.members.get(key)
    if (members === undefined) {
      members = new Set()
      this.members.set(key, members)
    }
    const concrete = hashKey(identity)
    if (!members.has(concrete)) {
      if (members.size > 0) this.info.merged++
      members.add(concrete)
    }
    const choices = new Map<string, Choice>()
    for (const c of exec.net.choices('any-order')) choices.set(c.key, c)
    return { key, label: (t) => this.label(t, bestRename, choices.get(t.key)) }
  }

  /** The protocol's data renamed: the scenario's hook, or the walk over string ids. */
  private data(value: unknown, rename: Rename): unknown {
    if (this.scenario.relabel !== undefined) return this.scenario.relabel(value, rename)
    return renameStrings(value, (s) => {
      const id = this.byText.get(s)
      return id === undefined ? s : String(rename(id))
    })
  }

  private id(text: string, rename: Rename): string {
    const id = this.byText.get(text)
    return id === undefined ? text : String(rename(id))
  }

  private relabelFingerprint(fp: SimFingerprint, rename: Rename): unknown {
    const nodes = fp.nodes
      .map((n) => ({
        ...n,
        id: rename(n.id),
        state: this.data(n.state, rename),
        storage: this.data(n.storage, rename),
        backlog: n.backlog.map((c) => this.call(c, rename)),
      }))
      .sort((a, b) => compareNodeIds(a.id, b.id))
    const reorders = this.scenario.fifo === false
    const links = fp.links
      .map(([link, msgs]): [string, unknown[]] => {
        const ends = this.links.get(link)
        const name = ends ? `${String(rename(ends[0]))}>${String(rename(ends[1]))}` : link
        const renamed = msgs.map(([m, copy]) => [this.data(m, rename), copy])
        // A link that reorders holds a multiset: sorted again after renaming.
        return [name, reorders ? sortByText(renamed) : renamed]
      })
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    const calls = sortByText(fp.calls.map((c) => this.call(c, rename)))
    return { ...fp, nodes, links, calls }
  }

  /** A pending call as `fingerprint.ts` describes it: timer, backlogged message, request. */
  private call(call: unknown, rename: Rename): unknown {
    if (!Array.isArray(call)) return call
    if (call[0] === 't' && call.length === 4)
      return ['t', this.id(call[1], rename), this.data(call[2], rename), call[3]]
    if (call[0] === 'm' && call.length === 4)
      return ['m', this.id(call[1], rename), this.data(call[2], rename), call[3]]
    if (typeof call[0] === 'string') return [this.requestKey(call[0], rename), ...call.slice(1)]
    return call
  }

  /** `r:2#1` (node 2's first request) renamed; planned actions `a#1` name no node. */
  private requestKey(key: string, rename: Rename): string {
    const hash = key.lastIndexOf('#')
    if (!key.startsWith('r:') || hash < 0) return key
    return `r:${this.id(key.slice(2, hash), rename)}${key.slice(hash)}`
  }

  private relabelHistory(history: unknown, rename: Rename): unknown {
    if (this.scenario.history !== undefined) return this.data(history, rename)
    // The default: each node's events in order, nodes sorted (the order across nodes is no state).
    const byNode = new Map<NodeId, unknown[]>()
    for (const [node, event] of history as Array<[NodeId, unknown]>) {
      const renamed = rename(node)
      let list = byNode.get(renamed)
      if (list === undefined) {
        list = []
        byNode.set(renamed, list)
      }
      list.push(this.data(plain(event), rename))
    }
    return [...byNode].sort(([a], [b]) => compareNodeIds(a, b))
  }

  /** A choice named by what it does, in the renamed state's naming (sleep sets compare these). */
  private label(token: Token, rename: Rename, choice: Choice | undefined): string {
    const owner = token.owner === undefined ? null : rename(token.owner)
    if (token.how === 'crash') return canonicalKey(['crash', owner])
    if (token.how === 'pause' || token.how === 'clock-step')
      return canonicalKey([token.how, owner, token.key.slice(token.key.lastIndexOf('@') + 1)])
    if (choice === undefined) return canonicalKey([token.how, token.key])
    if (choice.kind === 'deliver')
      return canonicalKey([
        token.how,
        rename(choice.from!),
        rename(choice.to!),
        choice.key.endsWith('+d'),
        this.data(choice.msg, rename),
      ])
    if (choice.kind === 'timer')
      return canonicalKey([token.how, 'timer', owner, this.data(choice.label, rename), choice.t])
    return canonicalKey([token.how, this.requestKey(choice.key, rename)])
  }
}

/** Every renaming that permutes ids within each group, the identity first. */
function renamings(groups: NodeId[][]): Rename[] {
  let maps: Array<Map<NodeId, NodeId>> = [new Map()]
  for (const group of groups) {
    const next: Array<Map<NodeId, NodeId>> = []
    for (const perm of permutations(group))
      for (const map of maps) {
        const m = new Map(map)
        for (const [i, id] of group.entries()) m.set(id, perm[i]!)
        next.push(m)
      }
    maps = next
  }
  return maps.map((m) => (id) => m.get(id) ?? id)
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  const out: T[][] = []
  items.forEach((item, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)]))
      out.push([item, ...rest])
  })
  return out
}

/** An event as plain data: JSON's reading when it is not (an optional field left undefined). */
function plain(event: unknown): unknown {
  try {
    canonicalKey(event)
    return event
  } catch {
    return JSON.parse(JSON.stringify(event) ?? 'null')
  }
}

function sortByText<T>(items: T[]): T[] {
  const keyed = items.map((item) => ({ item, k: canonicalKey(item, 'message') }))
  keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
  return keyed.map(({ item }) => item)
}

/**
 * Plain data with every string (value or object key) passed through `rename`; numbers, booleans
 * and null as they are. What the default relabelling does with string ids.
 */
export function renameStrings(value: unknown, rename: (s: string) => string): unknown {
  if (typeof value === 'string') return rename(value)
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => renameStrings(v, rename))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[rename(k)] = renameStrings(v, rename)
  return out
}
