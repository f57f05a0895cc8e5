/**
 * The network's fingerprint as a 64-bit hash, for the stateful explorer's visited set: mixed from
 * the hashes of its parts, cached where they were made (a node's entry while it is the same entry,
 * a message for good), without writing the fingerprint's text. Equal fingerprints give equal
 * hashes: the parts go in the order the fingerprint puts them in (nodes by id, links by name,
 * messages in sending order on a FIFO link), a multiset (messages on a link that reorders, the
 * calls pending) sorted by hash. A test checks it tells states apart as the canonical key does.
 */
import type { CanonicalText } from '../canonical.js'
import { InvalidArgumentError } from '../errors.js'
import { compareHash, type Hash64, hashText, Mixer } from '../hash64.js'
import { sortSmall } from '../sort-small.js'
import { hashValue } from '../value-hash.js'
import {
  describeCall,
  type FingerprintParts,
  type FingerprintSource,
  type NodeFingerprint,
} from './fingerprint.js'
import {
  type AbstractionContext,
  abstractMessageHash,
  abstractNodeHash,
  type KeyAbstraction,
  type KeyTaken,
  NO_RENAME,
  type Rename,
} from './key-abstraction.js'
import type { DeliverEvent, SimEvent, SimNode } from './sim-node.js'
import type { DataText } from './snapshot-text.js'

/** Links in the order the fingerprint sorts them, then sending order. */
const bySlot = (a: DeliverEvent, b: DeliverEvent): number => {
  const x = a.link.text
  const y = b.link.text
  return x < y ? -1 : x > y ? 1 : a.seq - b.seq
}

/**
 * A node's entry (`entryOf`, what `nodeText` writes) as what its hash is mixed from: the texts
 * of its state and storage (cached objects: the same object is the same text) and its numbers.
 */
export type EntryHash = Omit<NodeFingerprint, 'id' | 'state' | 'storage' | 'backlog'> & {
  state: CanonicalText | null
  storage: CanonicalText
  /** The key abstraction that stood for the state and disk, if one did, and its context. */
  abstraction: KeyAbstraction | undefined
  abstract: AbstractionContext | undefined
  /** Where the entry was mixed: its node's place, or its new name's under a renaming. */
  index: number
  rename: Rename
  hash: Hash64
}

const entryMixer = new Mixer()

/** The hash of the node's entry, cached while the entry stays the same and has no backlog. */
function entryHash(
  source: FingerprintSource,
  node: SimNode,
  index: number,
  parts: FingerprintParts,
  canonical: (value: unknown, path: string) => string,
  /** The abstraction and its context, where it applies. */
  abstraction: KeyAbstraction | undefined,
  context: AbstractionContext,
  rename: Rename = NO_RENAME,
): Hash64 | undefined {
  if (!node.crashed && node.protocol?.snapshot === undefined) return undefined
  const t = source.time
  const state = node.crashed ? null : (parts.state(node) as CanonicalText)
  const storage = parts.storage(node) as CanonicalText
  const wall = node.clock.read(t)
  const monotonic = node.clock.monotonic(t)
  const group = source.partitioned ? node.group : -1
  const crashPlanned = node.storage.crashPlan !== undefined
  const last = node.entryHash
  const backlog = node.backlog.length
  // A crashed node's disk stays as it is: the abstraction reads running nodes.
  const by = state !== null ? abstraction : undefined
  const abstract = by !== undefined ? context : undefined
  if (
    last !== undefined &&
    backlog === 0 &&
    last.abstraction === by &&
    last.abstract === abstract &&
    last.index === index &&
    last.rename === rename &&
    last.state === state &&
    last.storage === storage &&
    last.crashed === node.crashed &&
    last.paused === node.paused &&
    last.incarnation === node.incarnation &&
    last.draws === node.draws &&
    last.wall === wall &&
    last.monotonic === monotonic &&
    last.drift === node.clock.drift &&
    last.resolution === node.clock.resolution &&
    last.group === group &&
    last.crashPlanned === crashPlanned
  )
    return last.hash
  const m = entryMixer.reset().word(index)
  if (state === null) m.word(0).pair(storage.hash)
  else if (abstract !== undefined) {
    const data = {
      state: (state as DataText).data,
      storage: (storage as DataText).data as Record<string, unknown>,
    }
    m.word(2).pair(abstractNodeHash(abstraction!, context, node, state, storage, data, rename))
  } else m.word(1).pair(state.hash).pair(storage.hash)
  m.word((node.crashed ? 1 : 0) | (node.paused ? 2 : 0) | (crashPlanned ? 4 : 0))
  m.number(node.incarnation).number(node.draws).number(wall).number(monotonic)
  m.number(node.clock.drift).number(node.clock.resolution).number(group)
  if (backlog === 0) m.word(0)
  else {
    const where = `node ${JSON.stringify(node.id)} backlog`
    m.word(backlog).pair(hashText(canonical(node.backlog.map(describeCall), where)))
  }
  if (backlog !== 0) {
    node.entryHash = undefined
    return m.finish({ hi: 0, lo: 0 })
  }
  if (last === undefined) {
    const hash = m.finish({ hi: 0, lo: 0 })
    node.entryHash = {
      state,
      storage,
      crashed: node.crashed,
      paused: node.paused,
      incarnation: node.incarnation,
      draws: node.draws,
      wall,
      monotonic,
      drift: node.clock.drift,
      resolution: node.clock.resolution,
      group,
      crashPlanned,
      abstraction: by,
      abstract,
      index,
      rename,
      hash,
    }
    return hash
  }
  // Overwritten, not made anew: a node's entry changes state after state (its hash is read at once).
  last.state = state
  last.storage = storage
  last.crashed = node.crashed
  last.paused = node.paused
  last.incarnation = node.incarnation
  last.draws = node.draws
  last.wall = wall
  last.monotonic = monotonic
  last.drift = node.clock.drift
  last.resolution = node.clock.resolution
  last.group = group
  last.crashPlanned = crashPlanned
  last.abstraction = by
  last.abstract = abstract
  last.index = index
  last.rename = rename
  return m.finish(last.hash)
}

const mixer = new Mixer()
const inner = new Mixer()

/**
 * Mixes the fingerprint's hash into `into` (see the module's comment); false when the network
 * has no fingerprint (as `fingerprintOf` is undefined). `parts.node` must give `CanonicalText`.
 */
export function keyHashOf(
  source: FingerprintSource,
  ids: readonly SimNode['id'][],
  parts: FingerprintParts,
  canonical: (value: unknown, path: string) => string,
  into: Hash64,
  abstraction?: KeyAbstraction,
  taken?: KeyTaken,
): boolean {
  if (taken !== undefined) taken.rename = undefined
  if (source.links.randomFaults()) return false
  const context = abstraction === undefined ? undefined : contextOf(abstraction, source, parts)
  const abstract = context !== undefined
  const renamings = abstract ? abstraction!.renamings?.(context) : undefined
  if (renamings !== undefined && renamings.length > 0) {
    // The least key over the renamings: the same for every renaming of the state they cover.
    let best: Rename | undefined
    for (const rename of renamings) {
      if (!keyRenamed(source, ids, parts, canonical, candidate, abstraction!, context!, rename))
        return false
      if (best === undefined || compareHash(candidate, into) < 0) {
        best = rename
        into.hi = candidate.hi
        into.lo = candidate.lo
      }
    }
    if (taken !== undefined) taken.rename = best
    return true
  }
  const m = mixer.reset()
  m.number(source.time).word(ids.length)
  if (abstract) {
    const keyed = abstraction!.contextKey === undefined ? context : abstraction!.contextKey(context)
    m.word(0xab57ac7).pair(hashValue(keyed, scratch))
  }
  for (let i = 0; i < ids.length; i++) {
    const node = source.nodes.get(ids[i]!)!
    const hash = entryHash(
      source,
      node,
      i,
      parts,
      canonical,
      abstract ? abstraction : undefined,
      context ?? false,
    )
    if (hash === undefined) return false
    m.pair(hash)
  }
  const { delivers, calls } = pendingOf(source, describeCall)
  const message = abstract && abstraction!.message !== undefined ? abstraction : undefined
  let links = 0
  for (let i = 0; i < delivers.length; ) {
    const { from, to } = delivers[i]!
    let end = i + 1
    while (end < delivers.length && delivers[end]!.from === from && delivers[end]!.to === to) end++
    const fifo = source.links.existing(from.id, to.id)?.config.fifo ?? true
    if (message === undefined) {
      links++
      m.pair(delivers[i]!.link.hash).word(end - i)
      if (fifo) for (let j = i; j < end; j++) m.pair(copyHash(delivers[j]!))
      else {
        const msgs: Hash64[] = []
        for (let j = i; j < end; j++) msgs.push(copyHash(delivers[j]!, { hi: 0, lo: 0 }))
        mixSorted(m, msgs)
      }
    } else {
      // What the abstraction keeps of the link: a link whose messages it all leaves out is as
      // an empty one.
      const kept = keptScratch
      kept.length = 0
      for (let j = i; j < end; j++) {
        if (hashPool.length === kept.length) hashPool.push({ hi: 0, lo: 0 })
        const into = hashPool[kept.length]!
        if (abstractMessageHash(message, context!, delivers[j]!, into) === undefined) continue
        if (fifo && kept.length < j - i) throw leftOutAhead(from.id, to.id)
        kept.push(into)
      }
      if (kept.length > 0) {
        links++
        m.pair(delivers[i]!.link.hash).word(kept.length)
        if (fifo) for (const h of kept) m.pair(h)
        else mixSorted(m, kept)
      }
    }
    i = end
  }
  m.word(links)
  sortSmall(calls, compareHash)
  m.word(calls.length)
  for (const h of calls) m.pair(h)
  m.finish(into)
  delivers.length = 0 // holds no event past its state
  return true
}

/**
 * `keyHashOf` under the abstraction's renaming of the nodes: each node's entry mixed at its new
 * name's place, each link as its renamed ends with what the abstraction keeps of its messages (a
 * multiset of links: their order by name is the concrete names'), each pending call with its
 * owner renamed. The abstraction's kept values are already in the new naming.
 */
function keyRenamed(
  source: FingerprintSource,
  ids: readonly SimNode['id'][],
  parts: FingerprintParts,
  canonical: (value: unknown, path: string) => string,
  into: Hash64,
  abstraction: KeyAbstraction,
  context: AbstractionContext,
  rename: Rename,
): boolean {
  const m = mixer.reset()
  m.number(source.time).word(ids.length)
  const keyed = abstraction.contextKey === undefined ? context : abstraction.contextKey(context)
  m.word(0xab57ac7).pair(hashValue(keyed, scratch)).word(0x5e7a3e)
  const entries = entryScratch
  entries.length = ids.length
  entries.fill(undefined)
  for (let i = 0; i < ids.length; i++) {
    const node = source.nodes.get(ids[i]!)!
    const at = ids.indexOf(rename(node.id))
    if (at < 0 || entries[at] !== undefined) throw notABijection(ids, rename)
    if (node.backlog.length > 0)
      throw new InvalidArgumentError(
        `explore: the key abstraction renamed nodes while node ${JSON.stringify(node.id)} has a backlog (it is paused); renaming needs none`,
      )
    const hash = entryHash(source, node, at, parts, canonical, abstraction, context, rename)
    if (hash === undefined) return false
    entries[at] = hash
  }
  for (const hash of entries) m.pair(hash!)
  const { delivers, calls } = pendingOf(source, (e) => renamedCall(e, rename))
  const links = linkScratch
  links.length = 0
  for (let i = 0; i < delivers.length; ) {
    const { from, to } = delivers[i]!
    let end = i + 1
    while (end < delivers.length && delivers[end]!.from === from && delivers[end]!.to === to) end++
    if (!(source.links.existing(from.id, to.id)?.config.fifo ?? true))
      throw new InvalidArgumentError(
        `explore: the key abstraction renamed nodes with the link ${String(from.id)} -> ${String(to.id)} reordering; renaming needs FIFO links`,
      )
    const link = linkMixer.reset()
    let kept = 0
    for (let j = i; j < end; j++) {
      const h = abstraction.message
        ? abstractMessageHash(abstraction, context, delivers[j]!, scratch, rename)
        : copyHash(delivers[j]!)
      if (h === undefined) continue
      if (kept < j - i) throw leftOutAhead(from.id, to.id)
      link.pair(h)
      kept++
    }
    if (kept > 0) {
      if (hashPool.length === links.length) hashPool.push({ hi: 0, lo: 0 })
      const ends = renamedLinkHash(rename(from.id), rename(to.id))
      links.push(link.word(kept).pair(ends).finish(hashPool[links.length]!))
    }
    i = end
  }
  m.word(links.length)
  mixSorted(m, links)
  sortSmall(calls, compareHash)
  m.word(calls.length)
  for (const h of calls) m.pair(h)
  m.finish(into)
  delivers.length = 0
  links.length = 0
  return true
}

/**
 * What is pending, in scratch arrays emptied each time (this runs state after state): the
 * deliveries in the order of their links, then sending order, and the other calls' hashes, each
 * as `describe` has it (as data, not as its canonical text: the same tells calls apart, without
 * the writing).
 */
function pendingOf(
  source: FingerprintSource,
  describe: (e: SimEvent) => unknown,
): { delivers: DeliverEvent[]; calls: Hash64[] } {
  const delivers = deliverScratch
  const calls = callScratch
  delivers.length = 0
  calls.length = 0
  for (const e of source.queue.live()) {
    if (e.kind === 'deliver') delivers.push(e)
    else calls.push(hashValue(describe(e), { hi: 0, lo: 0 }, callWhere))
  }
  sortSmall(delivers, bySlot)
  return { delivers, calls }
}

/** A pending timer, request or planned action as `describeCall` has it, its owner renamed. */
function renamedCall(e: SimEvent, rename: Rename): unknown {
  if (e.kind === 'deliver' || e.owner === undefined) return describeCall(e)
  const owner = String(rename(e.owner))
  if (e.timer) return ['t', owner, e.label ?? e.key, e.t]
  // A request's key is `r:<owner>#<count>` (SimNetwork.request).
  const prefix = `r:${String(e.owner)}#`
  return [e.key.startsWith(prefix) ? `r:${owner}#${e.key.slice(prefix.length)}` : e.key, e.t]
}

/** The hash of a link's renamed ends, made once per pair. */
function renamedLinkHash(from: SimNode['id'], to: SimNode['id']): Hash64 {
  const name = `${String(from)}>${String(to)}`
  let hash = linkHashes.get(name)
  if (hash === undefined) {
    hash = hashText(name)
    linkHashes.set(name, hash)
  }
  return hash
}

function notABijection(ids: readonly SimNode['id'][], rename: Rename): InvalidArgumentError {
  const pairs = ids.map((id) => `${JSON.stringify(id)} -> ${JSON.stringify(rename(id))}`)
  return new InvalidArgumentError(
    `explore: the key abstraction's renaming is not a bijection of the node ids: ${pairs.join(', ')}`,
  )
}

/** A multiset of hashes, in sorted order. */
function mixSorted(m: Mixer, hashes: Hash64[]): void {
  sortSmall(hashes, compareHash)
  for (const h of hashes) m.pair(h)
}

/** On a FIFO link a kept message waits behind one the abstraction left out: refused. */
function leftOutAhead(from: SimNode['id'], to: SimNode['id']): InvalidArgumentError {
  return new InvalidArgumentError(
    `explore: the key abstraction left out a message on the FIFO link ${String(from)} -> ${String(to)} ahead of one it keeps; on a FIFO link leave out all of a link's messages or none (decide by the receiver and the context)`,
  )
}

/** The abstraction's context in this state (undefined: it does not apply), from the snapshots. */
function contextOf(
  abstraction: KeyAbstraction,
  source: FingerprintSource,
  parts: FingerprintParts,
): AbstractionContext | undefined {
  return abstraction.context((id) => {
    const node = source.nodes.get(id)
    if (node === undefined || node.crashed || node.protocol?.snapshot === undefined)
      return undefined
    return (parts.state(node) as DataText).data
  })
}

/** A message in flight: its text's hash and whether it is a duplicated copy. */
function copyHash(e: DeliverEvent, into: Hash64 = scratch): Hash64 {
  // As data (as `hashValue` tells messages apart, so does their canonical text), not through the
  // text's cache: a WeakMap entry per message sent is a cost to the collector, state after state.
  e.msgHash ??= hashValue(e.msg, { hi: 0, lo: 0 }, messageWhere)
  return inner
    .reset()
    .pair(e.msgHash)
    .word(e.duplicate ? 1 : 0)
    .finish(into)
}

const scratch: Hash64 = { hi: 0, lo: 0 }
/** A state's key under one renaming, before it is compared with the least so far. */
const candidate: Hash64 = { hi: 0, lo: 0 }
const deliverScratch: DeliverEvent[] = []
const callScratch: Hash64[] = []
/** What an abstraction keeps of one link's messages: hashes written into `hashPool`'s slots. */
const keptScratch: Hash64[] = []
const hashPool: Hash64[] = []
const entryScratch: Array<Hash64 | undefined> = []
const linkScratch: Hash64[] = []
const linkMixer = new Mixer()
const linkHashes = new Map<string, Hash64>()
const callWhere = () => 'call'
const messageWhere = () => 'message'
