/**
 * A simulator checkpoint: the network's whole exact state (queue, links, timers, clocks, disks,
 * incarnations, draws, who is paused or crashed, counters), saved so the same network can go back
 * to it. The explorer branches from one instead of replaying the prefix. Protocol instances are
 * kept as their `snapshot()` and come back as fresh instances from the factory, `restore`d.
 */
import type { CanonicalText } from '../canonical.js'
import type { SeekableRandom } from '../random.js'
import type { ProtocolHandle } from '../runtime/driver.js'
import type { EventQueue } from './event-queue.js'
import type { LinkTable, LinkTableState } from './link-table.js'
import type { CallEvent, SimEvent, SimNode } from './sim-node.js'
import type { SimStorageState } from './sim-storage.js'
import type { SimWire } from './sim-wire.js'
import type { SimStats } from './stats.js'
import type { TraceRecorder } from './trace-recorder.js'

/** What a checkpoint reads and writes of the network (its private parts). */
export interface CheckpointContext {
  readonly nodes: ReadonlyMap<unknown, SimNode>
  readonly queue: EventQueue<SimEvent>
  readonly links: LinkTable
  readonly wire: SimWire
  readonly random: SeekableRandom
  readonly recorder: TraceRecorder
  readonly counters: SimStats
  /** A running node's snapshot as canonical text (JSON), cached while it runs no handler. */
  stateText(node: SimNode): CanonicalText
  /** Time and the actions planned so far. */
  scalars: { time: number; planned: number }
  /**
   * Starts a fresh instance from the node's factory with `restore(state)`, its `start` not run,
   * re-arming `timers` (saved timer events, whose due time, key and seq the new ones take).
   * Returns the new timer events, in the same order.
   */
  resume(node: SimNode, state: unknown, timers: readonly CallEvent[]): CallEvent[]
}

/** An opaque saved state of a `SimNetwork` (see `SimNetwork.checkpoint`). */
export interface SimCheckpoint {
  readonly scalars: { time: number; planned: number }
  readonly counters: SimStats
  readonly seq: number
  readonly queue: SimEvent[]
  readonly links: LinkTableState
  readonly wire: { partitioned: boolean; messageIds: number }
  readonly random: readonly number[]
  readonly traceLength: number
  readonly nodes: SavedNode[]
  /** Each saved timer event and the one it copies (what a kept instance's runtime holds). */
  readonly originals: ReadonlyMap<SimEvent, SimEvent>
}

interface SavedNode {
  node: SimNode
  crashed: boolean
  incarnation: number
  group: number
  members: SimNode['members']
  timersSet: number
  requests: number
  factory: SimNode['factory']
  draws: number
  paused: boolean
  backlog: SimEvent[]
  /** The keys of the timers in `SimNode.timers` (cancelled if it crashes). */
  timerKeys: string[]
  clock: readonly number[]
  storage: SimStorageState
  /**
   * A running instance: its snapshot as JSON and its pending timers (saved copies); the instance
   * itself with its handlers begun and timers armed, kept when none of its handlers ran since.
   */
  running:
    | {
        /** Kept as the same object: a node's cached entry and hashes still match it once restored. */
        state: CanonicalText
        timers: CallEvent[]
        /** Per timer: what waits is a copy of the runtime's (see `saveCheckpoint`). */
        taken: boolean[]
        handle: ProtocolHandle<unknown, unknown>
        protocol: SimNode['protocol']
        inputs: number
        armed: Array<[string, CallEvent]>
      }
    | undefined
}

/** Whether every node can be saved: running with `snapshot` and `restore`, or crashed. */
export function canCheckpoint(ctx: CheckpointContext): boolean {
  for (const node of ctx.nodes.values()) {
    if (node.crashed) continue
    if (!running(node.handle) || node.transport.closed) return false
    const p = node.protocol
    if (p?.snapshot === undefined || p.restore === undefined) return false
  }
  return true
}

const running = (handle: ProtocolHandle<unknown, unknown> | undefined) =>
  handle !== undefined && !handle.stopped

/** Saves the network; call only when `canCheckpoint`. */
export function saveCheckpoint(ctx: CheckpointContext): SimCheckpoint {
  // Each live event is copied: the copies stay as they are, whatever happens to the originals.
  const copies = new Map<SimEvent, SimEvent>()
  const copy = (e: SimEvent): SimEvent => {
    let c = copies.get(e)
    if (c === undefined) {
      c = { ...e }
      copies.set(e, c)
    }
    return c
  }
  const live = ctx.queue.live()
  const queue = live.map(copy)
  // Where each timer waits, by its key: in the queue, or (taken while paused) in a backlog.
  const waiting = new Map<string, SimEvent>()
  for (const e of live) if (e.kind === 'call' && e.timer) waiting.set(e.key, e)
  for (const node of ctx.nodes.values())
    for (const e of node.backlog) if (e.kind === 'call' && e.timer) waiting.set(e.key, e)
  const nodes: SavedNode[] = []
  for (const node of ctx.nodes.values()) {
    const backlog = node.backlog.map(copy)
    let saved: SavedNode['running']
    if (!node.crashed) {
      // The timers the runtime has pending (a replaced or fired one is not), where they wait.
      const timers: CallEvent[] = []
      const taken: boolean[] = []
      for (const armed of node.armed.values()) {
        const e = waiting.get(armed.key)
        if (e === undefined) continue
        timers.push(copy(e) as CallEvent)
        // Taken while its node was paused: what waits is a copy, and cancelling the timer
        // cancels the runtime's own (gone from the queue), not the copy, which fires for nothing.
        taken.push(e !== armed)
      }
      saved = {
        state: ctx.stateText(node),
        timers,
        taken,
        handle: node.handle!,
        protocol: node.protocol,
        inputs: node.inputs,
        armed: [...node.armed],
      }
    }
    nodes.push({
      node,
      crashed: node.crashed,
      incarnation: node.incarnation,
      group: node.group,
      members: node.members,
      timersSet: node.timersSet,
      requests: node.requests,
      factory: node.factory,
      draws: node.draws,
      paused: node.paused,
      backlog,
      timerKeys: [...node.timers].map((t) => t.key),
      clock: node.clock.save(),
      storage: node.storage.save(),
      running: saved,
    })
  }
  return {
    scalars: { ...ctx.scalars },
    counters: copyStats(ctx.counters),
    seq: ctx.queue.seqCounter,
    queue,
    links: ctx.links.save(),
    wire: ctx.wire.save(),
    random: ctx.random.save(),
    traceLength: ctx.recorder.events.length,
    nodes,
    originals: timerOriginals(copies),
  }
}

function timerOriginals(copies: ReadonlyMap<SimEvent, SimEvent>): Map<SimEvent, SimEvent> {
  const originals = new Map<SimEvent, SimEvent>()
  for (const [original, c] of copies) if (c.kind === 'call' && c.timer) originals.set(c, original)
  return originals
}

/** Whether the node's instance is still the one saved, no handler of it run since. */
const untouched = (node: SimNode, s: SavedNode) =>
  s.running !== undefined &&
  !node.crashed &&
  node.handle === s.running.handle &&
  node.inputs === s.running.inputs

/** Puts the network back as `cp` saved it (`cp` itself is left as it is: it can be loaded again). */
export function loadCheckpoint(ctx: CheckpointContext, cp: SimCheckpoint): void {
  Object.assign(ctx.scalars, cp.scalars)
  const counters = copyStats(cp.counters)
  Object.assign(ctx.counters, counters)
  ctx.links.load(cp.links)
  ctx.wire.load(cp.wire)
  ctx.random.load(cp.random)
  ctx.recorder.truncate(cp.traceLength)
  const rearmed = new Map<SimEvent, SimEvent>()
  const kept = new Set<SimNode>()
  for (const s of cp.nodes) {
    const node = s.node
    if (untouched(node, s)) {
      // Its instance, runtime and timers are as saved: only the network around it goes back.
      kept.add(node)
      node.timers.clear()
      node.armed = new Map(s.running!.armed)
      node.clock.load(s.clock)
      node.storage.load(s.storage)
      node.paused = s.paused
      node.group = s.group
      node.timersSet = s.timersSet
      node.requests = s.requests
      continue
    }
    // The instance of now goes: its subscription and timers with it.
    node.handle?.stop()
    node.handle = undefined
    node.protocol = undefined
    node.timers.clear()
    node.armed.clear()
    node.crashed = s.crashed
    node.incarnation = s.incarnation
    node.group = s.group
    node.members = s.members
    node.timersSet = s.timersSet
    node.requests = s.requests
    node.factory = s.factory
    node.paused = s.paused
    node.clock.load(s.clock)
    node.storage.load(s.storage)
    node.draws = s.draws
    if (s.running !== undefined) {
      const fresh = ctx.resume(node, JSON.parse(s.running.state.text), s.running.timers)
      s.running.timers.forEach((old, i) => {
        const handle = fresh[i]!
        if (!s.running!.taken[i]) rearmed.set(old, handle)
        else {
          handle.cancelled = true
          rearmed.set(old, { ...old, run: handle.run })
        }
      })
      node.storage.load(s.storage) // starting cleared what the running handler was handling
      // Restored, it has the snapshot it was saved with (what `checkSnapshots` checks).
      node.stateText = s.running.state
    }
  }
  const revive = (e: SimEvent): SimEvent => {
    const fresh = rearmed.get(e)
    if (fresh !== undefined) return fresh
    // A kept runtime holds its timers by identity: the same objects go back, as they were.
    const original = cp.originals.get(e)
    if (original !== undefined && kept.has((e as CallEvent).node!))
      return Object.assign(original, e)
    return { ...e }
  }
  const queue = cp.queue.map(revive)
  for (const s of cp.nodes) s.node.backlog = s.backlog.map(revive)
  for (const s of cp.nodes) {
    if (s.timerKeys.length === 0) continue
    const keys = new Set(s.timerKeys)
    for (const e of [...queue, ...s.node.backlog])
      if (e.kind === 'call' && e.timer && e.node === s.node && keys.has(e.key)) s.node.timers.add(e)
  }
  ctx.queue.reset(queue, cp.seq)
}

function copyStats(s: SimStats): SimStats {
  return { ...s, dropped: { ...s.dropped }, byType: { ...s.byType } }
}
