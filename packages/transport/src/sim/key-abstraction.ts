/**
 * A state abstraction for the stateful explorer's key: in the states where it `applies`, each
 * node's snapshot and disk, and each message in flight, count in the key as what it maps them to,
 * so states that differ only in what it leaves out are one. Sound only when what it leaves out can
 * change nothing the search looks at from that state on (a dead value: a Lamport clock no request
 * will ever be stamped from again); the explorer cannot check that (see the README, "Abstraction").
 */
import { type Hash64, Mixer } from '../hash64.js'
import type { NodeId } from '../ids.js'
import { hashValue } from '../value-hash.js'
import type { DeliverEvent, SimNode } from './sim-node.js'

/** See `ExploreScenario.abstraction`. */
export interface KeyAbstraction {
  /**
   * Undefined where the abstraction does not apply; else what `node` and `message` are told of
   * the state as a whole (a bound read from all the nodes, or `true`), part of the key too. Read
   * from the running nodes' snapshots (`snapshot(id)`: undefined for a crashed node or one
   * without `snapshot()`).
   */
  context(snapshot: (id: NodeId) => unknown): AbstractionContext | undefined
  /**
   * What of the context the key keeps. Default: all of it. A context may carry what `node` and
   * `message` need to make their kept values relative (a base time they subtract) without the
   * key telling states apart by it: sound only when the states it then merges, equal up to that
   * base, have the same futures up to it (a protocol that only compares times and adds to them).
   */
  contextKey?(context: AbstractionContext): AbstractionContext
  /**
   * What the key keeps of a running node's snapshot and committed disk (plain data); under a
   * renaming (`renamings`), with the ids inside given their new names by `rename`.
   */
  node(
    id: NodeId,
    snapshot: unknown,
    storage: Readonly<Record<string, unknown>>,
    context: AbstractionContext,
    rename: Rename,
  ): unknown
  /**
   * What the key keeps of a message in flight (plain data). Default: the message. Undefined leaves
   * the message out of the key: sound only for a dead message, one whose delivery, whenever it
   * comes, changes nothing the key keeps and sends and emits nothing (see the README). On a FIFO
   * link no message the key keeps may wait behind one it leaves out (its delivery would be named
   * otherwise in merged states): decide by the receiver and the context, so a link's messages are
   * all kept or all left out; the key refuses a link where a kept one waits behind a left-out one.
   */
  message?(
    msg: unknown,
    from: NodeId,
    to: NodeId,
    context: AbstractionContext,
    rename: Rename,
  ): unknown
  /**
   * The renamings of the nodes (bijections of the network's ids) under which this state may be
   * keyed, or undefined for none: a symmetry the abstraction vouches for in this context. The key
   * is the least of the state's keys under each (so it is the same for every renaming of a state
   * the list covers); under one, `node` and `message` give their kept values with the ids inside
   * renamed, and the key places each node's entry, each link, and each timer's and request's
   * owner under its new name. Sound only when every renaming given maps the state to one with the
   * same futures up to it. Needs FIFO links, no paused node's backlog, and no history or side
   * state in the key (`history: () => null`); a timer's label is kept as it is. See the README,
   * "Abstraction: renaming".
   */
  renamings?(context: AbstractionContext): ReadonlyArray<Rename> | undefined
}

/** A renaming of node ids. */
export type Rename = (id: NodeId) => NodeId

/** No renaming: what `node` and `message` are given outside `renamings`. */
export const NO_RENAME: Rename = (id) => id

/** What the key tells its caller of how it was taken: the renaming it used, if any. */
export interface KeyTaken {
  rename: Rename | undefined
}

/** A primitive, so that a node's abstracted hash can be cached per context (by `===`). */
export type AbstractionContext = string | number | boolean

/** A node's abstracted state and disk, hashed once while both stay the same objects. */
export interface AbstractHash {
  of: KeyAbstraction
  context: AbstractionContext
  rename: Rename
  state: unknown
  storage: unknown
  hash: Hash64
}

const mixer = new Mixer()

/**
 * The hash of what the abstraction keeps of a running node (`state` and `storage`: the node's
 * cached key parts, `data` their values), cached on the node while the parts are the same.
 */
export function abstractNodeHash(
  abstraction: KeyAbstraction,
  context: AbstractionContext,
  node: SimNode,
  state: object,
  storage: object,
  data: { state: unknown; storage: Readonly<Record<string, unknown>> },
  rename: Rename = NO_RENAME,
): Hash64 {
  // A few kept: a state keyed under several renamings asks for each in turn.
  if (node.abstractHash === undefined) node.abstractHash = []
  const cache = node.abstractHash
  for (const last of cache)
    if (
      last.of === abstraction &&
      last.context === context &&
      last.rename === rename &&
      last.state === state &&
      last.storage === storage
    )
      return last.hash
  const kept = abstraction.node(node.id, data.state, data.storage, context, rename)
  const hash = hashValue(kept, { hi: 0, lo: 0 }, () => `abstraction of node ${String(node.id)}`)
  if (cache.length >= CACHED) cache.shift()
  cache.push({ of: abstraction, context, rename, state, storage, hash })
  return hash
}

/** Abstracted hashes kept per node and per message. */
const CACHED = 4

/**
 * The hash of what the abstraction keeps of a message in flight (and whether it is a copy);
 * undefined when the abstraction leaves the message out of the key.
 */
export function abstractMessageHash(
  abstraction: KeyAbstraction,
  context: AbstractionContext,
  e: DeliverEvent,
  into: Hash64,
  rename: Rename = NO_RENAME,
): Hash64 | undefined {
  // Cached on the delivery per abstraction, context and renaming: its own fields never change.
  // A plain delivery keeps none: its getter gives undefined whatever is set.
  const cache = e.abstracted ?? []
  if (e.abstracted === undefined) e.abstracted = cache
  let h: Hash64 | null | undefined
  for (const last of cache)
    if (last.of === abstraction && last.context === context && last.rename === rename) {
      h = last.hash
      break
    }
  if (h === undefined) {
    const kept = abstraction.message!(e.msg, e.from.id, e.to.id, context, rename)
    h = kept === undefined ? null : hashValue(kept, { hi: 0, lo: 0 }, messageWhere)
    if (cache.length >= CACHED) cache.shift()
    cache.push({ of: abstraction, context, rename, hash: h })
  }
  if (h === null) return undefined
  return mixer
    .reset()
    .pair(h)
    .word(e.duplicate ? 1 : 0)
    .finish(into)
}

const messageWhere = () => 'abstraction of a message'
