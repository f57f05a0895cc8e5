import { type PartLocator, partLocatorOf } from '../compose/parts.js'
import {
  InvalidArgumentError,
  type ProtocolError,
  SimulationError,
  TransportClosedError,
  UnknownNodeError,
} from '../errors.js'
import { compareNodeIds, isNodeId, type NodeId } from '../ids.js'
import type { ProtocolFactory, ProtocolInput } from '../protocol.js'
import { createRandom, type Random } from '../random.js'
import { type ProtocolHandle, type RuntimeObserver, runProtocol } from '../runtime/driver.js'
import type { TimerScheduler } from '../runtime/time.js'
import type { JsonValue } from '../storage/json.js'
import { applyWrites } from '../storage/memory.js'
import type { StorageBackend, StorageWrites } from '../storage/types.js'
import type { MessageHandler, Transport, Unsubscribe } from '../transport.js'
import { EventQueue, type Scheduled } from './event-queue.js'
import {
  DEFAULT_LINK,
  type LinkSettings,
  type LinkState,
  type ResolvedLink,
  resolveLink,
} from './links.js'
import { type ClockSettings, NodeClock } from './node-clock.js'
import { type DropReason, messageType, type TraceDocument, type TraceEvent } from './trace.js'

export interface SimNetworkOptions extends LinkSettings {
  /** Same seed, same run: every random choice of the network and of each node derives from it. Default 1. */
  seed?: number | string
  /** Record a trace (default true). Turn off for long runs and benchmarks. */
  trace?: boolean
  /** 'none' (default) hands the sender's object to the receiver; 'json' round-trips it, catching unserializable messages and shared mutation. */
  copyMessages?: 'none' | 'json'
}

export interface RunOptions {
  /** Stop before the first event later than this virtual time, and move the clock to it. */
  until?: number
  /** Give up (SimulationError) after this many events. Default 5,000,000. */
  maxEvents?: number
}

/**
 * The part of an `AbortSignal` that `runRealtime` uses, declared here so the main entry
 * type-checks without DOM or Node types; a real `AbortSignal` fits.
 */
export interface AbortSignalLike {
  readonly aborted: boolean
  readonly reason?: unknown
  throwIfAborted(): void
}

export interface RunResult {
  events: number
  time: number
  /** Nothing is left to happen. */
  quiescent: boolean
}

/** An event a scheduler may pick next (see `SimNetwork.choices`). */
export interface Choice {
  key: string
  kind: 'deliver' | 'timer' | 'request' | 'action'
  /** The node whose state it touches; undefined for a planned action (it may touch anything). */
  owner: NodeId | undefined
  /** When virtual time would have it happen. */
  t: number
  from?: NodeId
  to?: NodeId
  msg?: unknown
}

export interface SimStats {
  sent: number
  delivered: number
  duplicated: number
  dropped: Record<DropReason, number>
  /** Sent messages by their `type` field. */
  byType: Record<string, number>
  timersFired: number
  events: number
}

type SimEvent = DeliverEvent | CallEvent

interface DeliverEvent extends Scheduled {
  kind: 'deliver'
  /** Stable across schedules that differ only in independent choices (see `choices`). */
  key: string
  id: number
  from: SimNode
  to: SimNode
  msg: unknown
  sentAt: number
  proto: string | undefined
}

interface CallEvent extends Scheduled {
  kind: 'call'
  node: SimNode | undefined
  run: () => void
  key: string
  /** The node whose state it touches (a timer's, a request's), or undefined for a plan action. */
  owner: NodeId | undefined
  timer: boolean
}

interface SimNode {
  readonly id: NodeId
  readonly transport: SimTransport<unknown>
  readonly clock: NodeClock
  readonly links: Map<NodeId, LinkState>
  crashed: boolean
  incarnation: number
  group: number
  members: readonly NodeId[]
  /** Timers set and requests planned so far: they name those events stably. */
  timersSet: number
  requests: number
  factory: ProtocolFactory<unknown, unknown, unknown> | undefined
  handle: ProtocolHandle<unknown, unknown> | undefined
  /** Timers of the current incarnation, cancelled on crash. */
  timers: Set<CallEvent>
  /** The node's disk: committed storage entries, kept across crashes and restarts. */
  readonly disk: Map<string, JsonValue>
  /** What the running handler is handling (for `crashBeforeCommit`). */
  input: ProtocolInput | undefined
  /** Paused: the node runs no handler; what comes for it waits in `backlog`. */
  paused: boolean
  /** Deliveries, timers and requests that came due while the node was paused, in order. */
  backlog: SimEvent[]
  /** A planned crash at the commit of a step that matches. */
  crashPlan: ((step: CommitStep) => boolean) | undefined
  /** Names the child of a composed protocol behind a message, timer, event or request. */
  locator: PartLocator | undefined
}

/** A step about to commit its writes, as `crashBeforeCommit` sees it. */
export interface CommitStep {
  node: NodeId
  /** What the handler handled. */
  input: ProtocolInput
  /** Its writes: a value, or `undefined` for a delete. */
  writes: StorageWrites
}

/** The nodes `launch` started, and a `request` that type-checks against their protocol. */
export interface LaunchedGroup<Req> {
  /** Ids of the group, ascending. */
  readonly members: readonly NodeId[]
  /** `SimNetwork.request` for a member of the group. */
  request(id: NodeId, req: Req, at?: number): void
}

export interface RestartOptions {
  /** The node comes back with empty storage, as after losing its disk. Default false. */
  wipeStorage?: boolean
}

export type EmitListener = (node: NodeId, event: unknown, time: number) => void

/**
 * A deterministic network simulator: virtual time, a seeded PRNG, per-link latency, loss,
 * duplication and ordering, partitions, crashes and restarts, per-node clocks, and a trace.
 * It is also a `Transport` factory (`addNode`) and a protocol host (`launch`).
 */
export class SimNetwork {
  readonly seed: number | string
  private readonly random: Random
  private readonly queue = new EventQueue<SimEvent>()
  private readonly nodes = new Map<NodeId, SimNode>()
  private readonly overrides = new Map<NodeId, Map<NodeId, ResolvedLink>>()
  private readonly emitListeners = new Set<EmitListener>()
  private readonly copy: ((msg: unknown) => unknown) | undefined
  private defaultLink: ResolvedLink
  private readonly traceEvents: TraceEvent[] | undefined
  private time = 0
  private nextMessageId = 0
  private planned = 0
  private partitioned = false
  private failure: SimulationError | undefined
  private readonly counters: SimStats

  constructor(options: SimNetworkOptions = {}) {
    this.seed = options.seed ?? 1
    if (typeof this.seed !== 'string' && !Number.isFinite(this.seed)) {
      throw new InvalidArgumentError(`seed must be a finite number or a string, got ${this.seed}`)
    }
    this.random = createRandom(`net/${this.seed}`)
    this.defaultLink = resolveLink(DEFAULT_LINK, options, 'network')
    this.traceEvents = options.trace === false ? undefined : []
    this.copy = options.copyMessages === 'json' ? (m) => JSON.parse(JSON.stringify(m)) : undefined
    this.counters = {
      sent: 0,
      delivered: 0,
      duplicated: 0,
      dropped: {
        loss: 0,
        partition: 0,
        'receiver-crashed': 0,
        'receiver-closed': 0,
        'sender-crashed': 0,
      },
      byType: {},
      timersFired: 0,
      events: 0,
    }
  }

  /** Virtual time in ms. */
  get now(): number {
    return this.time
  }

  get stats(): SimStats {
    return structuredClone(this.counters)
  }

  /** Ids of every node, ascending. */
  get nodeIds(): NodeId[] {
    return [...this.nodes.keys()].sort(compareNodeIds)
  }

  /** Events still scheduled (messages in flight, timers, planned actions). */
  get pending(): number {
    return this.queue.size
  }

  // ---- nodes -------------------------------------------------------------------------------

  /** Adds a node and returns its transport (for raw use; `launch` runs protocols). */
  addNode<Msg = unknown>(id: NodeId, clock: ClockSettings = {}): Transport<Msg> {
    if (!isNodeId(id))
      throw new InvalidArgumentError(
        `node id must be a finite number or a string, got ${String(id)}`,
      )
    if (this.nodes.has(id))
      throw new InvalidArgumentError(`node ${JSON.stringify(id)} already exists`)
    const node: SimNode = {
      id,
      transport: undefined as unknown as SimTransport<unknown>,
      clock: new NodeClock(this.time),
      links: new Map(),
      crashed: false,
      incarnation: 0,
      group: -1,
      members: [],
      timersSet: 0,
      requests: 0,
      factory: undefined,
      handle: undefined,
      timers: new Set(),
      disk: new Map(),
      input: undefined,
      paused: false,
      backlog: [],
      crashPlan: undefined,
      locator: undefined,
    }
    ;(node as { transport: SimTransport<unknown> }).transport = new SimTransport(this, node)
    node.clock.set(this.time, clock, `node ${JSON.stringify(id)}`)
    this.nodes.set(id, node)
    return node.transport as Transport<Msg>
  }

  /** The transport of an existing node. */
  transport<Msg = unknown>(id: NodeId): Transport<Msg> {
    return this.node(id, 'transport()').transport as Transport<Msg>
  }

  /**
   * Adds the nodes (if new) and starts a protocol instance on each, in id order, at the current
   * virtual time. Every instance sees the others as `ctx.peers`. The factory is kept for restarts.
   * Returns the group, whose `request` is typed by the protocol's requests.
   */
  launch<Msg, Req = never, Ev = never>(
    ids: readonly NodeId[],
    factory: ProtocolFactory<Msg, Req, Ev>,
  ): LaunchedGroup<Req> {
    if (ids.length === 0) throw new InvalidArgumentError('launch needs at least one node id')
    const members = [...new Set(ids)].sort(compareNodeIds)
    for (const id of members) {
      if (!this.nodes.has(id)) this.addNode(id)
      const node = this.nodes.get(id)!
      if (node.handle && !node.handle.stopped) {
        throw new InvalidArgumentError(`node ${JSON.stringify(id)} already runs a protocol`)
      }
      node.members = members
      node.factory = factory as ProtocolFactory<unknown, unknown, unknown>
    }
    for (const id of members) this.startProtocol(this.nodes.get(id)!)
    this.throwFailure()
    return {
      members,
      request: (id, req, at) => {
        if (!members.includes(id)) throw new UnknownNodeError(id, 'request() of a launched group')
        this.request(id, req, at)
      },
    }
  }

  /** Feeds a local request to a node's protocol at the current virtual time (or at `at`). */
  request<Req>(id: NodeId, req: Req, at?: number): void {
    const node = this.node(id, 'request()')
    if (at !== undefined) this.checkFuture(at, 'request()')
    const key = `r:${String(id)}#${++node.requests}`
    this.schedule(at ?? this.time, undefined, key, id, false, () => {
      if (node.crashed || !node.handle || node.handle.stopped) {
        this.record(
          withProto(
            { t: this.time, type: 'request', node: id, req, dropped: true },
            node.locator?.request(req),
          ),
        )
        return
      }
      node.handle.request(req)
    })
  }

  /** Runs `action` at virtual time `t` (fault plans: crash at 50 ms, heal at 200 ms...). */
  at(t: number, action: () => void): void {
    this.checkFuture(t, 'at()')
    this.schedule(t, undefined, `a#${++this.planned}`, undefined, false, action)
  }

  /** Listens to every event a protocol emits, with the node and the virtual time. */
  onEmit(listener: EmitListener): Unsubscribe {
    this.emitListeners.add(listener)
    return () => this.emitListeners.delete(listener)
  }

  /** This node's wall clock reading now (what its `ctx.now()` returns). */
  clockOf(id: NodeId): number {
    return this.node(id, 'clockOf()').clock.read(this.time)
  }

  /** This node's monotonic clock reading now (what its `ctx.monotonic()` returns). */
  monotonicOf(id: NodeId): number {
    return this.node(id, 'monotonicOf()').clock.monotonic(this.time)
  }

  // ---- faults ------------------------------------------------------------------------------

  /** Changes a node's physical clock from now on. */
  setClock(id: NodeId, settings: ClockSettings): void {
    const node = this.node(id, 'setClock()')
    node.clock.set(this.time, settings, `node ${JSON.stringify(id)}`)
    this.record({
      t: this.time,
      type: 'clock',
      node: id,
      offset: node.clock.offsetAt(this.time),
      drift: node.clock.drift,
      ...(node.clock.resolution > 0 ? { resolution: node.clock.resolution } : {}),
    })
  }

  /**
   * Steps a node's wall clock by `deltaMs` now (negative: back), as NTP or an operator setting the
   * time would; its monotonic clock and its timers are not affected. Recorded as `clock-step`.
   */
  stepClock(id: NodeId, deltaMs: number): void {
    const node = this.node(id, 'stepClock()')
    node.clock.step(this.time, deltaMs, `stepClock(${JSON.stringify(id)})`)
    this.record({ t: this.time, type: 'clock-step', node: id, deltaMs })
  }

  /** Changes every link that has no per-link settings. */
  setDefaultLink(settings: LinkSettings): void {
    this.defaultLink = resolveLink(this.defaultLink.settings, settings, 'default link')
    for (const node of this.nodes.values()) {
      for (const state of node.links.values())
        if (!state.overridden) state.config = this.defaultLink
    }
  }

  /** Changes the directed link from -> to (and to -> from unless `oneWay`). */
  setLink(
    from: NodeId,
    to: NodeId,
    settings: LinkSettings,
    options: { oneWay?: boolean } = {},
  ): void {
    this.node(from, 'setLink()')
    this.node(to, 'setLink()')
    this.overrideLink(from, to, settings)
    if (!options.oneWay) this.overrideLink(to, from, settings)
  }

  /**
   * Splits the network: nodes in different groups cannot reach each other; nodes not listed form
   * one more group. A message is judged when it is sent: what was already in flight arrives.
   */
  partition(...groups: NodeId[][]): void {
    const seen = new Set<NodeId>()
    for (const node of this.nodes.values()) node.group = -1
    groups.forEach((group, index) => {
      for (const id of group) {
        if (seen.has(id))
          throw new InvalidArgumentError(`partition(): node ${JSON.stringify(id)} is in two groups`)
        seen.add(id)
        this.node(id, 'partition()').group = index
      }
    })
    this.partitioned = true
    this.record({ t: this.time, type: 'partition', groups: groups.map((g) => [...g]) })
  }

  /** Removes every partition. */
  heal(): void {
    for (const node of this.nodes.values()) node.group = -1
    this.partitioned = false
    this.record({ t: this.time, type: 'heal' })
  }

  /** Stops a node: its protocol instance and timers are gone; messages to it are dropped. */
  crash(id: NodeId): void {
    const node = this.node(id, 'crash()')
    if (node.crashed) return
    node.crashed = true
    if (node.paused) {
      node.paused = false
      for (const held of node.backlog) {
        if (held.kind === 'deliver')
          this.drop(held.id, held.from, held.to, 'receiver-crashed', held.proto)
      }
      node.backlog = []
    }
    node.handle?.stop()
    node.handle = undefined
    for (const timer of node.timers) timer.cancelled = true
    node.timers.clear()
    this.record({ t: this.time, type: 'crash', node: id })
  }

  /**
   * Freezes a node, as SIGSTOP, a long garbage collection or a stalled VM would: it runs no
   * handler until `resume`; messages that arrive for it, timers that come due and requests wait,
   * in order. Its clocks go on, and so does everybody else. Recorded as `pause`.
   */
  pause(id: NodeId): void {
    const node = this.node(id, 'pause()')
    if (node.paused || node.crashed) return
    node.paused = true
    this.record({ t: this.time, type: 'pause', node: id })
  }

  /**
   * Wakes a paused node: everything that waited is handled now, in the order it came due (its
   * timers late, its messages old). Recorded as `resume`, with how many events waited.
   */
  resume(id: NodeId): void {
    const node = this.node(id, 'resume()')
    if (!node.paused) return
    node.paused = false
    const backlog = node.backlog
    node.backlog = []
    this.record({ t: this.time, type: 'resume', node: id, backlog: backlog.length })
    // Due now, in their order: the queue keeps insertion order among events of one time.
    for (const event of backlog) {
      event.t = this.time
      event.cancelled = false
      this.queue.push(event)
    }
  }

  isPaused(id: NodeId): boolean {
    return this.node(id, 'isPaused()').paused
  }

  /**
   * Brings a crashed node back with a fresh protocol instance: volatile state is lost, stable
   * storage is kept, unless `wipeStorage` (the disk was lost too).
   */
  restart(id: NodeId, options: RestartOptions = {}): void {
    const node = this.node(id, 'restart()')
    if (!node.crashed)
      throw new InvalidArgumentError(`restart(): node ${JSON.stringify(id)} is not crashed`)
    node.crashed = false
    node.incarnation++
    if (options.wipeStorage) {
      node.disk.clear()
      this.record({ t: this.time, type: 'restart', node: id, storageWiped: true })
    } else {
      this.record({ t: this.time, type: 'restart', node: id })
    }
    if (node.factory) this.startProtocol(node)
  }

  /**
   * Plans a crash inside a step: the next handler of node `id` that wrote to storage, and for which
   * `match` holds (default: any), runs to its end, then the node crashes before the writes commit.
   * They are lost, with whatever the handler sent or emitted after its first write. One plan per
   * node (a new one replaces it); it waits, across restarts, until a step matches.
   */
  crashBeforeCommit(id: NodeId, match: (step: CommitStep) => boolean = () => true): void {
    this.node(id, 'crashBeforeCommit()').crashPlan = match
  }

  /** The committed storage of a node (what survives its crashes), keys ascending. */
  storageOf(id: NodeId): Record<string, JsonValue> {
    const disk = this.node(id, 'storageOf()').disk
    return Object.fromEntries([...disk].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }

  isCrashed(id: NodeId): boolean {
    return this.node(id, 'isCrashed()').crashed
  }

  // ---- running -----------------------------------------------------------------------------

  // ---- controlled scheduling (the explorer) --------------------------------------------------

  /**
   * The events that may happen next when a scheduler, not virtual time, decides: every message in
   * flight (the network is asynchronous: any delay is possible; on a FIFO link, the default, only
   * the oldest one of that link), and the timers and planned
   * actions. With `timers: 'in-order'` (the default) only the earliest of those are offered, so
   * timeouts keep their order and virtual time only moves forward; with `'any-order'` any of them,
   * as if clocks could drift without bound. Keys name events stably: `m:1>2#3` is the third
   * message from 1 to 2, `t:2#1` the first timer node 2 set, `r:2#1` its first request, `a#1` the
   * first action planned with `at`.
   */
  choices(timers: 'in-order' | 'any-order' = 'in-order'): Choice[] {
    const live = this.queue.live()
    let earliest = Number.POSITIVE_INFINITY
    for (const e of live) if (e.kind === 'call') earliest = Math.min(earliest, e.t)
    // On a FIFO link (the default) only the oldest message in flight may arrive next.
    const head = new Map<string, DeliverEvent>()
    for (const e of live) {
      if (e.kind !== 'deliver' || !e.from.links.get(e.to.id)?.config.fifo) continue
      const link = `${String(e.from.id)}>${String(e.to.id)}`
      const first = head.get(link)
      if (first === undefined || e.seq < first.seq) head.set(link, e)
    }
    const out: Choice[] = []
    for (const e of live) {
      if (e.kind === 'deliver') {
        const link = `${String(e.from.id)}>${String(e.to.id)}`
        if (head.has(link) && head.get(link) !== e) continue
        out.push({
          key: e.key,
          kind: 'deliver',
          owner: e.to.id,
          t: e.t,
          from: e.from.id,
          to: e.to.id,
          msg: e.msg,
        })
      } else if (timers === 'any-order' || e.t === earliest) {
        out.push({
          key: e.key,
          kind: e.timer ? 'timer' : e.owner === undefined ? 'action' : 'request',
          owner: e.owner,
          t: e.t,
        })
      }
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  }

  /**
   * Makes the event `key` (from `choices`) happen now: a delivery at the present virtual time (or,
   * with `when: 'due'`, at its sampled arrival if that is later), a timer or planned action at its
   * own time if that is later. `drop` loses a message instead
   * (recorded as a `loss` drop) and `duplicate` delivers it and keeps a copy in flight. Returns
   * false when no such event is pending.
   */
  take(
    key: string,
    how: 'happen' | 'drop' | 'duplicate' = 'happen',
    when: 'now' | 'due' = 'now',
  ): boolean {
    const event = this.queue.live().find((e) => e.key === key)
    if (event === undefined) return false
    if (how !== 'happen' && event.kind !== 'deliver')
      throw new InvalidArgumentError(
        `take(): only a message can be dropped or duplicated, not ${key}`,
      )
    event.cancelled = true
    if (event.kind === 'call') event.node?.timers.delete(event)
    if (event.kind === 'deliver' && how === 'drop') {
      this.counters.events++
      this.drop(event.id, event.from, event.to, 'loss', event.proto)
      return true
    }
    if (event.kind === 'deliver' && how === 'duplicate') {
      this.counters.duplicated++
      this.traceEvents?.push(
        withProto(
          { t: this.time, type: 'duplicate', id: event.id, from: event.from.id, to: event.to.id },
          event.proto,
        ),
      )
      this.queue.push({ ...event, cancelled: false, key: `${event.key}+d` })
    }
    const copy = { ...event, cancelled: false }
    const early = event.kind === 'deliver' && when === 'now'
    this.process(copy, early ? this.time : Math.max(this.time, event.t))
    return true
  }

  /** Processes the next event. Returns false when nothing is left. */
  step(): boolean {
    const event = this.queue.pop()
    if (event === undefined) return false
    this.process(event)
    return true
  }

  /** Runs to quiescence, or until a virtual time. */
  run(options: RunOptions = {}): RunResult {
    const until = options.until ?? Number.POSITIVE_INFINITY
    const maxEvents = options.maxEvents ?? 5_000_000
    let events = 0
    for (;;) {
      const next = this.queue.peek()
      if (next === undefined || next.t > until) break
      if (events >= maxEvents) {
        throw new SimulationError(
          `run() did not quiesce within ${maxEvents} events: the protocol keeps itself busy (periodic timers?); use run({ until }) or raise maxEvents`,
          this.seed,
          this.time,
        )
      }
      this.queue.pop()
      this.process(next)
      events++
    }
    if (until !== Number.POSITIVE_INFINITY && until > this.time) this.time = until
    return { events, time: this.time, quiescent: this.queue.peek() === undefined }
  }

  /** Runs for `ms` more of virtual time. */
  runFor(ms: number, maxEvents?: number): RunResult {
    return this.run({ until: this.time + ms, ...(maxEvents === undefined ? {} : { maxEvents }) })
  }

  /**
   * Runs with virtual time mapped onto real time (for demos): `speed` 2 runs twice as fast as real.
   * Resolves at quiescence or at `until`; rejects with the signal's reason when aborted.
   */
  async runRealtime(
    options: RunOptions & { speed?: number; signal?: AbortSignalLike } = {},
  ): Promise<RunResult> {
    const speed = options.speed ?? 1
    if (!(speed > 0))
      throw new InvalidArgumentError(`runRealtime(): speed must be > 0, got ${speed}`)
    const until = options.until ?? Number.POSITIVE_INFINITY
    const startReal = performance.now()
    const startVirtual = this.time
    let events = 0
    for (;;) {
      options.signal?.throwIfAborted()
      const next = this.queue.peek()
      if (next === undefined || next.t > until) break
      const wait = startReal + (next.t - startVirtual) / speed - performance.now()
      // Short naps, so requests added meanwhile are not served late.
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 20)))
        continue
      }
      this.queue.pop()
      this.process(next)
      events++
    }
    if (until !== Number.POSITIVE_INFINITY && until > this.time) this.time = until
    return { events, time: this.time, quiescent: this.queue.peek() === undefined }
  }

  // ---- trace -------------------------------------------------------------------------------

  /** The events recorded so far (empty when tracing is off). */
  get trace(): readonly TraceEvent[] {
    return this.traceEvents ?? []
  }

  traceDocument(): TraceDocument {
    return {
      format: 'sd-trace',
      version: 1,
      seed: this.seed,
      nodes: this.nodeIds,
      events: [...this.trace],
    }
  }

  // ---- internals used by SimTransport --------------------------------------------------------

  /** @internal */
  sendFrom(from: SimNode, to: NodeId, msg: unknown): void {
    const target = this.nodes.get(to)
    if (target === undefined) throw new UnknownNodeError(to, `send from ${JSON.stringify(from.id)}`)
    const id = ++this.nextMessageId
    const counters = this.counters
    counters.sent++
    const type = messageType(msg)
    counters.byType[type] = (counters.byType[type] ?? 0) + 1
    const payload = this.copy ? this.copy(msg) : msg
    const traced = this.traceEvents
    const proto = from.locator?.message(msg)
    traced?.push(
      withProto({ t: this.time, type: 'send', id, from: from.id, to, msg: payload }, proto),
    )
    if (from.crashed) {
      this.drop(id, from, target, 'sender-crashed', proto)
      return
    }
    if (this.partitioned && from.group !== target.group) {
      this.drop(id, from, target, 'partition', proto)
      return
    }
    const link = this.linkState(from, target)
    const config = link.config
    const rand = this.random.next
    if (config.loss > 0 && rand() < config.loss) {
      this.drop(id, from, target, 'loss', proto)
      return
    }
    const key = `m:${String(from.id)}>${String(to)}#${++link.sent}`
    this.scheduleDelivery(link, id, from, target, payload, proto, key)
    if (config.duplicate > 0 && rand() < config.duplicate) {
      counters.duplicated++
      traced?.push(withProto({ t: this.time, type: 'duplicate', id, from: from.id, to }, proto))
      this.scheduleDelivery(link, id, from, target, payload, proto, `${key}+d`)
    }
  }

  // ---- internals -----------------------------------------------------------------------------

  /** Virtual time only moves forward: refuse a plan for the past. */
  private checkFuture(t: number, where: string): void {
    if (!(t >= this.time) || !Number.isFinite(t)) {
      throw new InvalidArgumentError(
        `${where}: time must be finite and not in the past (now ${this.time} ms), got ${t}`,
      )
    }
  }

  private node(id: NodeId, where: string): SimNode {
    const node = this.nodes.get(id)
    if (node === undefined) throw new UnknownNodeError(id, where)
    return node
  }

  private overrideLink(from: NodeId, to: NodeId, settings: LinkSettings): void {
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
    const state = this.nodes.get(from)!.links.get(to)
    if (state) {
      state.config = resolved
      state.overridden = true
    }
  }

  private linkState(from: SimNode, to: SimNode): LinkState {
    let state = from.links.get(to.id)
    if (state === undefined) {
      const override = this.overrides.get(from.id)?.get(to.id)
      state = {
        config: override ?? this.defaultLink,
        overridden: override !== undefined,
        lastArrival: 0,
        sent: 0,
      }
      from.links.set(to.id, state)
    }
    return state
  }

  private scheduleDelivery(
    link: LinkState,
    id: number,
    from: SimNode,
    to: SimNode,
    msg: unknown,
    proto: string | undefined,
    key: string,
  ): void {
    const config = link.config
    let t = this.time + config.sample(this.random.next, from.id, to.id)
    if (config.fifo) {
      if (t < link.lastArrival) t = link.lastArrival
      link.lastArrival = t
    }
    this.queue.push({
      kind: 'deliver',
      t,
      seq: 0,
      cancelled: false,
      id,
      from,
      to,
      msg,
      sentAt: this.time,
      proto,
      key,
    })
  }

  private drop(
    id: number,
    from: SimNode,
    to: SimNode,
    reason: DropReason,
    proto: string | undefined,
  ): void {
    this.counters.dropped[reason]++
    this.traceEvents?.push(
      withProto({ t: this.time, type: 'drop', id, from: from.id, to: to.id, reason }, proto),
    )
  }

  private schedule(
    t: number,
    node: SimNode | undefined,
    key: string,
    owner: NodeId | undefined,
    timer: boolean,
    run: () => void,
  ): CallEvent {
    const event: CallEvent = {
      kind: 'call',
      t,
      seq: 0,
      cancelled: false,
      node,
      run,
      key,
      owner,
      timer,
    }
    this.queue.push(event)
    return event
  }

  private process(event: SimEvent, time = event.t): void {
    this.time = time
    this.counters.events++
    const owner = this.pausedOwner(event)
    if (owner !== undefined) {
      owner.backlog.push(event)
      return
    }
    if (event.kind === 'deliver') {
      const { to } = event
      if (to.crashed) this.drop(event.id, event.from, to, 'receiver-crashed', event.proto)
      else if (to.transport.closed)
        this.drop(event.id, event.from, to, 'receiver-closed', event.proto)
      else {
        this.counters.delivered++
        this.traceEvents?.push(
          withProto(
            {
              t: this.time,
              type: 'deliver',
              id: event.id,
              from: event.from.id,
              to: to.id,
              sentAt: event.sentAt,
            },
            event.proto,
          ),
        )
        this.guardRaw(to, () => to.transport.deliver(event.from.id, event.msg))
      }
    } else {
      event.node?.timers.delete(event)
      this.guardRaw(event.node, event.run)
    }
    this.throwFailure()
  }

  /** The paused node an event would run on, if any (planned actions run whatever is paused). */
  private pausedOwner(event: SimEvent): SimNode | undefined {
    const node =
      event.kind === 'deliver'
        ? event.to
        : event.owner === undefined
          ? undefined
          : this.nodes.get(event.owner)
    return node?.paused ? node : undefined
  }

  /** Exceptions from raw handlers or scheduled actions also stop the run, with the seed. */
  private guardRaw(node: SimNode | undefined, body: () => void): void {
    try {
      body()
    } catch (cause) {
      if (this.failure) return
      const message = cause instanceof Error ? cause.message : String(cause)
      if (node) this.record({ t: this.time, type: 'error', node: node.id, message })
      this.failure = new SimulationError(
        node
          ? `node ${JSON.stringify(node.id)} failed: ${message}`
          : `a scheduled action failed: ${message}`,
        this.seed,
        this.time,
        node?.id,
        cause,
      )
    }
  }

  private throwFailure(): void {
    if (this.failure) throw this.failure
  }

  private startProtocol(node: SimNode): void {
    const factory = node.factory!
    const scheduler: TimerScheduler = {
      schedule: (ms, fire) => {
        const key = `t:${String(node.id)}#${++node.timersSet}`
        const timer = this.schedule(
          this.time + node.clock.toTrue(ms),
          node,
          key,
          node.id,
          true,
          () => {
            this.counters.timersFired++
            fire()
          },
        )
        node.timers.add(timer)
        return timer
      },
      cancel: (handle) => {
        const timer = handle as CallEvent
        timer.cancelled = true
        node.timers.delete(timer)
      },
    }
    this.record({ t: this.time, type: 'start', node: node.id })
    const protocol = factory(node.id)
    node.locator = partLocatorOf(protocol)
    node.input = undefined
    node.handle = runProtocol(protocol, {
      transport: node.transport,
      members: node.members,
      clock: { now: () => node.clock.read(this.time) },
      monotonic: { now: () => node.clock.monotonic(this.time) },
      timers: scheduler,
      random: createRandom(`node/${this.seed}/${String(node.id)}/${node.incarnation}`).next,
      storage: this.storageBackend(node),
      observer: {
        ...(this.traceEvents ? this.observer : {}),
        onInput: (_id, input) => {
          node.input = input
        },
      },
      onEvent: (event) => {
        for (const listener of this.emitListeners) listener(node.id, event, this.time)
      },
      onError: (error: ProtocolError) => {
        if (error.cause instanceof PlannedCrash) return
        this.record({ t: this.time, type: 'error', node: node.id, message: error.message })
        this.failure ??= new SimulationError(error.message, this.seed, this.time, node.id, error)
      },
    })
    if (node.crashed) node.handle = undefined // crashed while starting
  }

  /** A node's disk as the runtime sees it; its commit is where `crashBeforeCommit` strikes. */
  private storageBackend(node: SimNode): StorageBackend {
    return {
      load: () => new Map(node.disk),
      commit: (writes) => {
        const plan = node.crashPlan
        const step = { node: node.id, input: node.input ?? { kind: 'start' }, writes }
        if (plan?.(step)) {
          node.crashPlan = undefined
          this.recordWrites(node, writes, 'discarded')
          this.crash(node.id)
          // Thrown so the runtime abandons the step even while `start` runs, before the
          // instance has a handle the crash could stop.
          throw new PlannedCrash()
        }
        applyWrites(node.disk, writes)
        this.recordWrites(node, writes, 'committed')
      },
    }
  }

  private recordWrites(
    node: SimNode,
    writes: StorageWrites,
    outcome: 'committed' | 'discarded',
  ): void {
    if (!this.traceEvents) return
    const set: Record<string, unknown> = {}
    const deleted: string[] = []
    for (const [key, value] of writes) {
      if (value === undefined) deleted.push(key)
      else Object.defineProperty(set, key, { value, enumerable: true, writable: true })
    }
    this.record({ t: this.time, type: 'storage', node: node.id, set, deleted, outcome })
  }

  private locate<T>(id: NodeId, find: (locator: PartLocator) => T): T | undefined {
    const locator = this.nodes.get(id)?.locator
    return locator === undefined ? undefined : find(locator)
  }

  private readonly observer: RuntimeObserver<unknown, unknown, unknown> = {
    onTimerSet: (node, key, ms) =>
      this.record(
        withProto(
          { t: this.time, type: 'timer-set', node, key, ms },
          this.locate(node, (l) => l.timer(key)),
        ),
      ),
    onTimerFire: (node, key) =>
      this.record(
        withProto(
          { t: this.time, type: 'timer-fire', node, key },
          this.locate(node, (l) => l.timer(key)),
        ),
      ),
    onTimerCancel: (node, key) =>
      this.record(
        withProto(
          { t: this.time, type: 'timer-cancel', node, key },
          this.locate(node, (l) => l.timer(key)),
        ),
      ),
    onRequest: (node, req) =>
      this.record(
        withProto(
          { t: this.time, type: 'request', node, req },
          this.locate(node, (l) => l.request(req)),
        ),
      ),
    onEmit: (node, event) =>
      this.record(
        withProto(
          { t: this.time, type: 'emit', node, event },
          this.locate(node, (l) => l.event(event)),
        ),
      ),
  }

  private record(event: TraceEvent): void {
    this.traceEvents?.push(event)
  }
}

/** How a planned crash inside a step leaves the runtime: not a failure of the protocol. */
class PlannedCrash extends Error {}

/** The entry with `proto` when there is one: traces of plain protocols stay as they were. */
function withProto<E extends TraceEvent>(event: E, proto: string | undefined): E {
  if (proto !== undefined) (event as { proto?: string }).proto = proto
  return event
}

/** The transport face of a simulated node. */
class SimTransport<Msg> implements Transport<Msg> {
  private handlers: MessageHandler<Msg>[] = []
  private isClosed = false

  constructor(
    private readonly net: SimNetwork,
    private readonly node: SimNode,
  ) {}

  get self(): NodeId {
    return this.node.id
  }

  get closed(): boolean {
    return this.isClosed
  }

  send(to: NodeId, msg: Msg): void {
    if (this.isClosed) throw new TransportClosedError(this.node.id, `send to ${JSON.stringify(to)}`)
    this.net.sendFrom(this.node, to, msg)
  }

  onMessage(handler: MessageHandler<Msg>): Unsubscribe {
    if (this.isClosed) throw new TransportClosedError(this.node.id, 'add a message handler')
    this.handlers = [...this.handlers, handler]
    return () => {
      this.handlers = this.handlers.filter((h) => h !== handler)
    }
  }

  async close(): Promise<void> {
    this.isClosed = true
    this.handlers = []
  }

  /** @internal called by the network on delivery */
  deliver(from: NodeId, msg: unknown): void {
    const handlers = this.handlers
    for (let i = 0; i < handlers.length; i++) handlers[i]!(from, msg as Msg)
  }
}
