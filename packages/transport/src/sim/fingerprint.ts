/**
 * The simulator's global state as plain data, for a scheduler that decides the order of events
 * (the explorer): two networks with equal fingerprints have the same futures, up to the names of
 * events (`m:1>2#3` counts sends; the fingerprint describes what is in flight, not its history).
 */
import { compareNodeIds, type NodeId } from '../ids.js'
import type { EventQueue } from './event-queue.js'
import type { LinkTable } from './link-table.js'
import type { DeliverEvent, SimEvent, SimNode } from './sim-node.js'

/** What `fingerprintOf` reads of the network. */
export interface FingerprintSource {
  readonly nodes: ReadonlyMap<NodeId, SimNode>
  /** The nodes' ids ascending, if known. */
  readonly ids?: readonly NodeId[]
  readonly queue: EventQueue<SimEvent>
  readonly links: LinkTable
  readonly partitioned: boolean
  readonly time: number
}

/** One node: its protocol's snapshot (null while crashed), disk, clocks and what waits for it. */
export interface NodeFingerprint {
  id: NodeId
  crashed: boolean
  paused: boolean
  state: unknown
  storage: Record<string, unknown>
  /** Restarts and `ctx.random` draws: where the node's seeded random stream stands. */
  incarnation: number
  draws: number
  wall: number
  monotonic: number
  drift: number
  resolution: number
  group: number
  /** A `crashBeforeCommit` plan waits (its predicate cannot be compared: only that it exists). */
  crashPlanned: boolean
  /** What came due while it was paused, in order. */
  backlog: unknown[]
}

/** See `SimNetwork.fingerprint`. */
export interface SimFingerprint {
  /**
   * Virtual time is kept: timers are due at absolute times and clocks read it, so two states
   * at different times may differ in what `ctx.now()` returns next; nothing proves it irrelevant.
   * (While only messages are delivered, as the explorer does by default, it stays put and merges
   * nothing apart.)
   */
  time: number
  /** In id order (for a key, each may be its canonical text: see `SimNetwork.keyFingerprint`). */
  nodes: NodeFingerprint[]
  /**
   * Messages in flight per directed link `from>to`, each `[msg, duplicate]` (a duplicated copy
   * is not duplicated again): in sending order on a FIFO link, sorted otherwise (a multiset).
   * Their sampled arrival times are left out: a scheduler delivers any of them at any time.
   */
  links: Array<[string, Array<[unknown, boolean]>]>
  /** Timers `[node, key, due]`, requests and planned actions `[key, due]`, sorted. */
  calls: unknown[]
}

/**
 * How a fingerprint shows a running node's state and a message in flight: as they are, or (for a
 * key) as canonical text cached where it was made once (`CanonicalText`), which writes the same.
 */
export interface FingerprintParts {
  state(node: SimNode): unknown
  storage(node: SimNode): unknown
  message(event: DeliverEvent): unknown
  /** How the node's entry is shown (`nodeText` writes it as canonical text at once). */
  node(entry: NodeFingerprint): unknown
}

export const plainParts: FingerprintParts = {
  state: (node) => node.protocol!.snapshot!(),
  storage: (node) => node.storage.entries(),
  message: (event) => event.msg,
  node: (entry) => entry,
}

/**
 * `canonicalKey(entry)`, written field by field in the order it sorts its keys (a test checks
 * they agree): the fingerprint's most written part, and a short one.
 */
export function nodeText(
  entry: NodeFingerprint,
  canonical: (value: unknown, path: string) => string,
): string {
  const where = `node ${JSON.stringify(entry.id)}`
  const backlog = entry.backlog.length === 0 ? '[]' : canonical(entry.backlog, `${where} backlog`)
  return (
    `{"backlog":${backlog},"crashPlanned":${entry.crashPlanned},"crashed":${entry.crashed}` +
    `,"draws":${number(entry.draws)},"drift":${number(entry.drift)},"group":${number(entry.group)}` +
    `,"id":${canonical(entry.id, where)},"incarnation":${number(entry.incarnation)}` +
    `,"monotonic":${number(entry.monotonic)},"paused":${entry.paused}` +
    `,"resolution":${number(entry.resolution)},"state":${canonical(entry.state, where)}` +
    `,"storage":${canonical(entry.storage, `${where} storage`)},"wall":${number(entry.wall)}}`
  )
}

/**
 * Whether two entries of one node are equal, the first without a backlog: field by field, its
 * state and storage by their cached texts (see `SimNetwork.keyFingerprint`).
 */
export function sameEntry(a: NodeFingerprint, b: NodeFingerprint): boolean {
  return (
    b.backlog.length === 0 &&
    a.state === b.state &&
    a.storage === b.storage &&
    a.crashed === b.crashed &&
    a.paused === b.paused &&
    a.incarnation === b.incarnation &&
    a.draws === b.draws &&
    a.wall === b.wall &&
    a.monotonic === b.monotonic &&
    a.drift === b.drift &&
    a.resolution === b.resolution &&
    a.group === b.group &&
    a.crashPlanned === b.crashPlanned
  )
}

/** A finite number as `canonicalKey` writes it (the simulator's own numbers are finite). */
const number = (n: number) => (n === 0 ? '0' : String(n))

/**
 * The fingerprint, or undefined when the state cannot be told: a running node without
 * `snapshot()` (or a raw transport node), or links that lose or duplicate at random (the
 * network's own random stream would then be state).
 */
export function fingerprintOf(
  source: FingerprintSource,
  canonical: (value: unknown, path: string) => string,
  parts: FingerprintParts = plainParts,
): SimFingerprint | undefined {
  if (source.links.randomFaults()) return undefined
  const nodes: NodeFingerprint[] = []
  const ids = source.ids ?? [...source.nodes.keys()].sort(compareNodeIds)
  for (const id of ids) {
    const entry = entryOf(source, id, parts)
    if (entry === undefined) return undefined
    nodes.push(parts.node(entry) as NodeFingerprint)
  }
  const byLink = new Map<string, { fifo: boolean; events: SimEvent[] }>()
  const calls: unknown[] = []
  for (const e of source.queue.live()) {
    if (e.kind !== 'deliver') {
      calls.push(describeCall(e))
      continue
    }
    const link = `${String(e.from.id)}>${String(e.to.id)}`
    let entry = byLink.get(link)
    if (entry === undefined) {
      entry = { fifo: source.links.existing(e.from.id, e.to.id)?.config.fifo ?? true, events: [] }
      byLink.set(link, entry)
    }
    entry.events.push(e)
  }
  const links: SimFingerprint['links'] = []
  for (const link of [...byLink.keys()].sort()) {
    const { fifo, events } = byLink.get(link)!
    const msgs = (fifo ? events.sort((a, b) => a.seq - b.seq) : events).map(
      (e): [unknown, boolean] => [
        e.kind === 'deliver' ? parts.message(e) : null,
        e.kind === 'deliver' && e.duplicate,
      ],
    )
    if (!fifo) {
      const keyed = msgs.map((m) => ({ m, k: canonical(m, `message on ${link}`) }))
      keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
      links.push([link, keyed.map(({ m }) => m)])
    } else links.push([link, msgs])
  }
  const callKeys = calls.map((c) => ({ c, k: canonical(c, 'call') }))
  callKeys.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
  // Keys in canonical order: a key written of it need not sort them.
  return { calls: callKeys.map(({ c }) => c), links, nodes, time: source.time }
}

/** A node's entry, or undefined when it runs a protocol without `snapshot()`. */
export function entryOf(
  source: FingerprintSource,
  id: NodeId,
  parts: FingerprintParts,
): NodeFingerprint | undefined {
  const node = source.nodes.get(id)!
  if (!node.crashed && node.protocol?.snapshot === undefined) return undefined
  const t = source.time
  return {
    id,
    crashed: node.crashed,
    paused: node.paused,
    state: node.crashed ? null : parts.state(node),
    storage: parts.storage(node) as Record<string, unknown>,
    incarnation: node.incarnation,
    draws: node.draws,
    wall: node.clock.read(t),
    monotonic: node.clock.monotonic(t),
    drift: node.clock.drift,
    resolution: node.clock.resolution,
    group: source.partitioned ? node.group : -1,
    crashPlanned: node.storage.crashPlan !== undefined,
    backlog: node.backlog.map(describeCall),
  }
}

/** A timer by the protocol's key, a request or planned action by its stable key; with its time. */
export function describeCall(e: SimEvent): unknown {
  if (e.kind === 'deliver') return ['m', String(e.from.id), e.msg, e.duplicate] // waits in a backlog
  if (e.timer) return ['t', String(e.owner), e.label ?? e.key, e.t]
  return [e.key, e.t]
}
