/**
 * A simulator checkpoint: the network's whole exact state (queue, links, timers, clocks, disks,
 * incarnations, draws, who is paused or crashed, counters), saved so the same network can go back
 * to it. The explorer branches from one instead of replaying the prefix. Protocol instances are
 * kept as their `snapshot()` and come back as fresh instances from the factory, `restore`d.
 */
import { cloneData } from '../clone-data.js'
import type { SeekableRandom } from '../random.js'
import { type ProtocolHandle, rebinderOf } from '../runtime/driver.js'
import type { EventQueue } from './event-queue.js'
import type { LinkTable, LinkTableState } from './link-table.js'
import type { CallEvent, SimEvent, SimNode } from './sim-node.js'
import type { SimStorageState } from './sim-storage.js'
import type { SimWire } from './sim-wire.js'
import type { SnapshotText } from './snapshot-text.js'
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
  /** A running node's snapshot as a key part, cached while it runs no handler. */
  stateText(node: SimNode): SnapshotText
  /** Time and the actions planned so far. */
  scalars: { time: number; planned: number }
  /**
   * Starts a fresh instance from the node's factory with `restore(state)`, its `start` not run
   * (`state` is the checkpoint's copy, never to change: it is copied for `restore` unless the
   * instance declares `restoreCopies`),
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
  /**
   * The live events, shared with the network (not copied): an event only changes by its `t`,
   * `seq` and `cancelled`, which `fields` keeps and a load puts back. A load that re-arms a
   * node's timers puts the new ones here in place of the old (see `SavedNode.running`).
   */
  readonly queue: SimEvent[]
  readonly fields: number[]
  readonly links: LinkTableState
  readonly wire: { partitioned: boolean; messageIds: number }
  readonly random: readonly number[]
  readonly traceLength: number
  readonly nodes: SavedNode[]
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
  /** What waits while paused, shared as `SimCheckpoint.queue` is, with its `fields`. */
  backlog: SimEvent[]
  backlogFields: number[]
  /** The keys of the timers in `SimNode.timers` (cancelled if it crashes). */
  timerKeys: string[]
  clock: readonly number[]
  storage: SimStorageState
  /**
   * A running instance: its snapshot (a copy kept) and its pending timers; the instance itself with
   * its handlers begun and timers armed, kept when none of its handlers ran since. A load that
   * restores a fresh instance adopts it here (with its timers): a later load of the same
   * checkpoint keeps it in turn if it ran no handler since, instead of restoring another.
   */
  running:
    | {
        /** Kept as the same object: a node's cached entry and hashes still match it once restored. */
        state: SnapshotText
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

/** Each event's changing fields, in order: `t`, `seq`, `cancelled` (1 or 0). */
function fieldsOf(events: readonly SimEvent[]): number[] {
  const out = new Array<number>(events.length * 3)
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!
    out[3 * i] = e.t
    out[3 * i + 1] = e.seq
    out[3 * i + 2] = e.cancelled ? 1 : 0
  }
  return out
}

/** Puts back the fields `fieldsOf` kept. */
function resetFields(events: readonly SimEvent[], fields: readonly number[]): void {
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!
    e.t = fields[3 * i]!
    e.seq = fields[3 * i + 1]!
    e.cancelled = fields[3 * i + 2] === 1
  }
}

/** Saves the network; call only when `canCheckpoint`. */
export function saveCheckpoint(ctx: CheckpointContext): SimCheckpoint {
  const queue = ctx.queue.live()
  // Where each timer waits, by its key: in the queue, or (taken while paused) in a backlog.
  let waiting: Map<string, SimEvent> | undefined
  const nodes: SavedNode[] = []
  for (const node of ctx.nodes.values()) {
    let saved: SavedNode['running']
    if (!node.crashed) {
      // The timers the runtime has pending (a replaced or fired one is not), where they wait.
      let timers = NO_TIMERS
      let taken = NO_TAKEN
      if (node.armed.size > 0) {
        waiting ??= waitingTimers(ctx, queue)
        timers = []
        taken = []
        for (const armed of node.armed.values()) {
          const e = waiting.get(armed.key)
          if (e === undefined) continue
          timers.push(e as CallEvent)
          // Taken while its node was paused: what waits is a copy, and cancelling the timer
          // cancels the runtime's own (gone from the queue), not the copy, which fires for nothing.
          taken.push(e !== armed)
        }
      }
      saved = {
        state: frozen(ctx.stateText(node)),
        timers,
        taken,
        handle: node.handle!,
        protocol: node.protocol,
        inputs: node.inputs,
        armed: node.armed.size === 0 ? NO_ARMED : [...node.armed],
      }
    }
    const backlog = node.backlog.length === 0 ? NO_EVENTS : node.backlog.slice()
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
      backlogFields: backlog.length === 0 ? NO_FIELDS : fieldsOf(backlog),
      timerKeys: node.timers.size === 0 ? NO_KEYS : [...node.timers].map((t) => t.key),
      clock: node.clock.save(),
      storage: node.storage.save(),
      running: saved,
    })
  }
  return {
    // Not a spread: copying an object literal field by field is much cheaper per state.
    scalars: { time: ctx.scalars.time, planned: ctx.scalars.planned },
    counters: copyStats(ctx.counters),
    seq: ctx.queue.seqCounter,
    queue,
    fields: fieldsOf(queue),
    links: ctx.links.save(),
    wire: ctx.wire.save(),
    random: ctx.random.save(),
    traceLength: ctx.recorder.events.length,
    nodes,
  }
}

// Shared when empty (a load only replaces elements of these, never adds).
const NO_KEYS: string[] = []
const NO_TIMERS: CallEvent[] = []
const NO_TAKEN: boolean[] = []
const NO_ARMED: Array<[string, CallEvent]> = []
const NO_EVENTS: SimEvent[] = []
const NO_FIELDS: number[] = []

function waitingTimers(ctx: CheckpointContext, queue: readonly SimEvent[]): Map<string, SimEvent> {
  const waiting = new Map<string, SimEvent>()
  for (const e of queue) if (e.kind === 'call' && e.timer) waiting.set(e.key, e)
  for (const node of ctx.nodes.values())
    for (const e of node.backlog) if (e.kind === 'call' && e.timer) waiting.set(e.key, e)
  return waiting
}

/** The snapshot, its copy taken now: the instance may change it once a handler runs. */
function frozen(state: SnapshotText): SnapshotText {
  state.kept()
  return state
}

/** Whether the node's instance is still the one saved, no handler of it run since. */
const untouched = (node: SimNode, s: SavedNode) =>
  s.running !== undefined &&
  !node.crashed &&
  node.handle === s.running.handle &&
  node.protocol === s.running.protocol &&
  node.inputs === s.running.inputs

/**
 * Puts the network back as `cp` saved it. It can be loaded again: what it adopts (a node's
 * fresh instance and timers, in place of the ones it saved) stands for the same state.
 */
export function loadCheckpoint(ctx: CheckpointContext, cp: SimCheckpoint): void {
  ctx.scalars.time = cp.scalars.time
  ctx.scalars.planned = cp.scalars.planned
  loadStats(ctx.counters, cp.counters)
  ctx.links.load(cp.links)
  ctx.wire.load(cp.wire)
  ctx.random.load(cp.random)
  ctx.recorder.truncate(cp.traceLength)
  const kept = new Set<SimNode>()
  for (const s of cp.nodes) {
    const node = s.node
    if (untouched(node, s)) {
      kept.add(node)
      continue
    }
    // The instance of now goes, its timers with it (some of them saved events: their fields are
    // put back below). Its runtime stays to run the restored one, unless the node was down.
    const handle = node.handle
    if (s.running !== undefined && handle !== undefined && !handle.stopped)
      rebinderOf(handle).clearTimers()
    else {
      handle?.stop()
      node.handle = undefined
      node.protocol = undefined
    }
  }
  resetFields(cp.queue, cp.fields)
  for (const s of cp.nodes) resetFields(s.backlog, s.backlogFields)
  let rearmed: Map<SimEvent, SimEvent> | undefined
  for (const s of cp.nodes) {
    const node = s.node
    if (kept.has(node)) {
      // Its instance, runtime and timers are as saved: only the network around it goes back.
      if (node.timers.size > 0) node.timers.clear()
      if (s.running!.armed.length === 0) {
        if (node.armed.size > 0) node.armed.clear()
      } else node.armed = new Map(s.running!.armed)
      node.clock.load(s.clock)
      node.storage.load(s.storage)
      node.paused = s.paused
      node.group = s.group
      node.timersSet = s.timersSet
      node.requests = s.requests
      continue
    }
    // Clearing allocates, even an empty one.
    if (node.timers.size > 0) node.timers.clear()
    if (node.armed.size > 0) node.armed.clear()
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
    const run = s.running
    if (run !== undefined) {
      const fresh = ctx.resume(node, run.state.kept(), run.timers)
      rearmed ??= new Map()
      for (let i = 0; i < run.timers.length; i++) {
        const old = run.timers[i]!
        const handle = fresh[i]!
        if (!run.taken[i]) rearmed.set(old, handle)
        else {
          handle.cancelled = true
          rearmed.set(old, { ...old, run: handle.run })
        }
        run.timers[i] = rearmed.get(old) as CallEvent
      }
      node.storage.load(s.storage) // starting cleared what the running handler was handling
      // Restored, it has the snapshot it was saved with (what `checkSnapshots` checks).
      node.stateText = run.state
      // Adopted: the same state as saved, kept by the next load if it runs no handler.
      run.handle = node.handle!
      run.protocol = node.protocol
      run.inputs = node.inputs
      run.armed = node.armed.size === 0 ? NO_ARMED : [...node.armed]
    }
  }
  if (rearmed !== undefined) {
    adopt(cp.queue, rearmed)
    for (const s of cp.nodes) adopt(s.backlog, rearmed)
  }
  for (const s of cp.nodes)
    s.node.backlog =
      s.backlog.length === 0 && s.node.backlog.length === 0 ? s.node.backlog : s.backlog.slice()
  for (const s of cp.nodes) {
    if (s.timerKeys.length === 0) continue
    const keys = new Set(s.timerKeys)
    const node = s.node
    for (const list of [cp.queue, node.backlog])
      for (const e of list)
        if (e.kind === 'call' && e.timer && e.node === node && keys.has(e.key)) node.timers.add(e)
  }
  // The heap sorts the array it is given: a copy.
  ctx.queue.reset(cp.queue.slice(), cp.seq)
}

/** Puts the re-armed timers in place of the ones they replace (same due time, key and seq). */
function adopt(events: SimEvent[], rearmed: ReadonlyMap<SimEvent, SimEvent>): void {
  for (let i = 0; i < events.length; i++) {
    const fresh = rearmed.get(events[i]!)
    if (fresh !== undefined) events[i] = fresh
  }
}

/** Puts the counters back in place (the network's object stays: a checkpoint keeps its own). */
function loadStats(into: SimStats, saved: SimStats): void {
  into.sent = saved.sent
  into.delivered = saved.delivered
  into.duplicated = saved.duplicated
  into.timersFired = saved.timersFired
  into.events = saved.events
  Object.assign(into.dropped, saved.dropped)
  const byType = into.byType
  // Deleting a key turns the object into a slow dictionary: only when a type must go.
  let extra = false
  for (const type in byType) if (!Object.hasOwn(saved.byType, type)) extra = true
  if (extra) for (const type in byType) if (!Object.hasOwn(saved.byType, type)) delete byType[type]
  for (const type in saved.byType) byType[type] = saved.byType[type]!
}

function copyStats(s: SimStats): SimStats {
  const byType: Record<string, number> = {}
  for (const type in s.byType) byType[type] = s.byType[type]!
  return {
    sent: s.sent,
    delivered: s.delivered,
    duplicated: s.duplicated,
    dropped: { ...s.dropped },
    byType,
    timersFired: s.timersFired,
    events: s.events,
  }
}

/**
 * What a resumed instance's `restore` is handed: the checkpoint's own copy when it promises to
 * only read it (`restoreCopies`), else a copy of that.
 */
export function restoredState(protocol: { restoreCopies?: boolean }, kept: unknown): unknown {
  return protocol.restoreCopies === true ? kept : cloneData(kept)
}
