// One file, over 450 lines: SimNetwork is the simulator's public class, and its methods are its API
// (nodes, faults, scheduling, checkpoints, running, trace). The parts are beside it: sim-wire
// (messages), control (choices/take), checkpoint, key-parts (fingerprints for keys), realtime,
// sim-storage, trace-recorder, link-table, sim-node.
import { canonicalKey } from '../canonical.js'
import { partLocatorOf } from '../compose/parts.js'
import {
  InvalidArgumentError,
  type ProtocolError,
  SimulationError,
  UnknownNodeError,
} from '../errors.js'
import type { Hash64 } from '../hash64.js'
import { compareNodeIds, isNodeId, type NodeId } from '../ids.js'
import type { ProtocolFactory } from '../protocol.js'
import { createRandom } from '../random.js'
import { rebinderOf, runProtocol } from '../runtime/driver.js'
import type { TimerScheduler } from '../runtime/time.js'
import type { JsonValue } from '../storage/json.js'
import type { Transport, Unsubscribe } from '../transport.js'
import {
  type CheckpointContext,
  canCheckpoint,
  loadCheckpoint,
  restoredState,
  type SimCheckpoint,
  saveCheckpoint,
} from './checkpoint.js'
import { type Choice, type ControlContext, choicesOf, takeChoice } from './control.js'
import { EventQueue } from './event-queue.js'
import { fingerprintOf, type SimFingerprint } from './fingerprint.js'
import type { KeyAbstraction, KeyTaken } from './key-abstraction.js'
import { keyHashOf } from './key-hash.js'
import { cachedParts, stateText } from './key-parts.js'
import { type Route, routeOf } from './link-name.js'
import { LinkTable } from './link-table.js'
import type { LinkSettings } from './links.js'
import { type ClockSettings, NodeClock } from './node-clock.js'
import type {
  EmitListener,
  LaunchedGroup,
  LaunchOptions,
  RestartOptions,
  RunOptions,
  RunResult,
  SimNetworkOptions,
} from './options.js'
import { type EventLoop, type RealtimeOptions, runRealtime } from './realtime.js'
import type { CallEvent, DeliverEvent, RuntimeHost, SimEvent, SimNode } from './sim-node.js'
import { type CommitStep, PlannedCrash, SimStorage } from './sim-storage.js'
import { SimTransport } from './sim-transport.js'
import { SimWire } from './sim-wire.js'
import { emptyStats, type SimStats } from './stats.js'
import type { TraceDocument, TraceEvent } from './trace.js'
import { TraceRecorder, withProto } from './trace-recorder.js'

/**
 * A deterministic network simulator: virtual time, a seeded PRNG, per-link latency, loss,
 * duplication and ordering, partitions, crashes and restarts, per-node clocks, and a trace.
 * It is also a `Transport` factory (`addNode`) and a protocol host (`launch`).
 */
export class SimNetwork {
  readonly seed: number | string
  private readonly queue = new EventQueue<SimEvent>()
  private readonly nodes = new Map<NodeId, SimNode>()
  private readonly links: LinkTable
  private readonly wire: SimWire
  private readonly recorder: TraceRecorder
  /** What `choices` and `take` reach of the network. */
  private readonly control: ControlContext
  /** What `run` and `runRealtime` go through. */
  private readonly loop: EventLoop
  private readonly emitListeners = new Set<EmitListener>()
  private readonly counters: SimStats = emptyStats()
  /** What `checkpoint` and `restoreCheckpoint` reach of the network. */
  private readonly saved: CheckpointContext
  private time = 0
  /** `nodeIds`, until a node is added. */
  private sortedIds: NodeId[] | undefined
  private planned = 0
  private failure: SimulationError | undefined

  constructor(options: SimNetworkOptions = {}) {
    this.seed = options.seed ?? 1
    if (typeof this.seed !== 'string' && !Number.isFinite(this.seed)) {
      throw new InvalidArgumentError(`seed must be a finite number or a string, got ${this.seed}`)
    }
    const random = createRandom(`net/${this.seed}`)
    this.links = new LinkTable(options)
    this.recorder = new TraceRecorder(
      options.trace !== false,
      () => this.time,
      (id) => this.nodes.get(id)?.locator,
    )
    this.wire = new SimWire({
      queue: this.queue,
      links: this.links,
      random,
      counters: this.counters,
      recorder: this.recorder,
      now: () => this.time,
      copyMessages: options.copyMessages,
    })
    this.control = {
      queue: this.queue,
      links: this.links,
      wire: this.wire,
      counters: this.counters,
      now: () => this.time,
      process: (event, time) => this.process(event, time),
    }
    const net = this
    this.saved = {
      nodes: this.nodes,
      queue: this.queue,
      links: this.links,
      wire: this.wire,
      random,
      recorder: this.recorder,
      counters: this.counters,
      scalars: {
        get time() {
          return net.time
        },
        set time(t: number) {
          net.time = t
        },
        get planned() {
          return net.planned
        },
        set planned(n: number) {
          net.planned = n
        },
      },
      stateText,
      resume: (node, state, timers) => this.startProtocol(node, { state, timers }),
    }
    this.loop = {
      now: () => this.time,
      nextTime: () => this.queue.peek()?.t,
      processNext: () => this.process(this.queue.pop()!),
      finish: (events, until) => {
        if (until !== Number.POSITIVE_INFINITY && until > this.time) this.time = until
        return { events, time: this.time, quiescent: this.queue.peek() === undefined }
      },
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
      // Sends run later, once `node` is built: the transport sends as this node.
      transport: new SimTransport(id, (to, msg) => this.sendFrom(node, to, msg)),
      clock: new NodeClock(this.time),
      storage: new SimStorage(id, this.recorder, () => this.crash(id)),
      crashed: false,
      incarnation: 0,
      group: -1,
      members: [],
      timersSet: 0,
      requests: 0,
      factory: undefined,
      protocol: undefined,
      draws: 0,
      handle: undefined,
      timers: new Set(),
      armed: new Map(),
      inputs: 0,
      paused: false,
      backlog: [],
      locator: undefined,
      stateText: undefined,
      entryText: undefined,
      entryHash: undefined,
      abstractHash: undefined,
      routes: new Map(),
      lastRoute: undefined,
      host: undefined,
    }
    node.clock.set(this.time, clock, `node ${JSON.stringify(id)}`)
    this.nodes.set(id, node)
    this.sortedIds = undefined
    return node.transport as Transport<Msg>
  }

  /** The transport of an existing node. */
  transport<Msg = unknown>(id: NodeId): Transport<Msg> {
    return this.node(id, 'transport()').transport as Transport<Msg>
  }

  /**
   * Adds the nodes (if new) and starts a protocol instance on each, in id order, at the current
   * virtual time. Every instance sees the others as `ctx.peers`. The factory is kept for restarts.
   * Returns the group, whose `request` and `onEmit` are typed by the protocol's requests and events.
   */
  launch<Msg, Req = never, Ev = never>(
    ids: readonly NodeId[],
    factory: ProtocolFactory<Msg, Req, Ev>,
    options: LaunchOptions<Ev> = {},
  ): LaunchedGroup<Req, Ev> {
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
    // Only this launch's instances: a member may run another protocol after a later launch.
    const onEmit = (listener: EmitListener<Ev>): Unsubscribe =>
      this.onEmit((node, event, t) => {
        if (members.includes(node) && this.nodes.get(node)?.factory === factory) {
          listener(node, event as Ev, t)
        }
      })
    if (options.onEmit) onEmit(options.onEmit)
    for (const id of members) this.startProtocol(this.nodes.get(id)!)
    this.throwFailure()
    return {
      members,
      request: (id, req, at) => {
        if (!members.includes(id)) throw new UnknownNodeError(id, 'request() of a launched group')
        this.request(id, req, at)
      },
      onEmit,
    }
  }

  /** Feeds a local request to a node's protocol at the current virtual time (or at `at`). */
  request<Req>(id: NodeId, req: Req, at?: number): void {
    const node = this.node(id, 'request()')
    if (at !== undefined) this.checkFuture(at, 'request()')
    const key = `r:${String(id)}#${++node.requests}`
    this.schedule(at ?? this.time, undefined, key, id, false, () => {
      if (node.crashed || !node.handle || node.handle.stopped) {
        this.recorder.record(
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

  /** The committed storage of a node (what survives its crashes), keys ascending. */
  storageOf(id: NodeId): Record<string, JsonValue> {
    return this.node(id, 'storageOf()').storage.entries()
  }

  /**
   * This node's protocol state now, as its `snapshot()` gives it (one node's part of
   * `fingerprint()`, without walking the messages in flight): null while it is crashed, undefined
   * when its protocol has no `snapshot()`.
   */
  stateOf(id: NodeId): unknown {
    const node = this.node(id, 'stateOf()')
    if (node.crashed) return null
    return node.protocol?.snapshot === undefined ? undefined : node.protocol.snapshot()
  }

  isCrashed(id: NodeId): boolean {
    return this.node(id, 'isCrashed()').crashed
  }

  isPaused(id: NodeId): boolean {
    return this.node(id, 'isPaused()').paused
  }

  // ---- faults ------------------------------------------------------------------------------

  /** Changes a node's physical clock from now on. */
  setClock(id: NodeId, settings: ClockSettings): void {
    const node = this.node(id, 'setClock()')
    node.clock.set(this.time, settings, `node ${JSON.stringify(id)}`)
    this.recorder.record({
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
    this.recorder.record({ t: this.time, type: 'clock-step', node: id, deltaMs })
  }

  /** Changes every link that has no per-link settings. */
  setDefaultLink(settings: LinkSettings): void {
    this.links.setDefault(settings)
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
    this.links.override(from, to, settings)
    if (!options.oneWay) this.links.override(to, from, settings)
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
    this.wire.partitioned = true
    this.recorder.record({ t: this.time, type: 'partition', groups: groups.map((g) => [...g]) })
  }

  /** Removes every partition. */
  heal(): void {
    for (const node of this.nodes.values()) node.group = -1
    this.wire.partitioned = false
    this.recorder.record({ t: this.time, type: 'heal' })
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
          this.wire.drop(held.id, held.from, held.to, 'receiver-crashed', held.proto)
      }
      node.backlog = []
    }
    node.handle?.stop()
    node.handle = undefined
    node.protocol = undefined
    node.stateText?.release()
    node.stateText = undefined
    for (const timer of node.timers) timer.cancelled = true
    node.timers.clear()
    node.armed.clear()
    this.recorder.record({ t: this.time, type: 'crash', node: id })
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
    this.recorder.record({ t: this.time, type: 'pause', node: id })
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
    this.recorder.record({ t: this.time, type: 'resume', node: id, backlog: backlog.length })
    // Due now, in their order: the queue keeps insertion order among events of one time.
    for (const event of backlog) {
      event.t = this.time
      event.cancelled = false
      this.queue.push(event)
    }
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
      node.storage.wipe()
      this.recorder.record({ t: this.time, type: 'restart', node: id, storageWiped: true })
    } else {
      this.recorder.record({ t: this.time, type: 'restart', node: id })
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
    this.node(id, 'crashBeforeCommit()').storage.crashPlan = match
  }

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
    this.explorerAsks()
    return choicesOf(this.control, timers)
  }

  /**
   * Keys of every pending event, messages behind a FIFO link's head included (what `choices`
   * holds back), sorted: the explorer's source-set reduction reads which event created which.
   */
  pendingKeys(): string[] {
    this.explorerAsks()
    return this.queue
      .live()
      .map((e) => e.key)
      .sort()
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
    this.explorerAsks()
    return takeChoice(this.control, key, how, when)
  }

  /**
   * The global state as plain data, for stateful exploration: each node's `snapshot()` and
   * storage, who is crashed or paused, pending timers and planned calls, messages in flight per
   * link, virtual time (see `SimFingerprint`). Undefined when some running node has no
   * `snapshot()`, or links lose or duplicate at random.
   */
  fingerprint(): SimFingerprint | undefined {
    return fingerprintOf(this.sourceOfFingerprint(), canonicalKey)
  }

  /**
   * The network's whole exact state, to go back to with `restoreCheckpoint` (the explorer
   * branches from one instead of replaying a prefix). Undefined unless every node is crashed or
   * runs a protocol with both `snapshot()` and `restore()`.
   */
  checkpoint(): SimCheckpoint | undefined {
    this.explorerAsks()
    return canCheckpoint(this.saved) ? saveCheckpoint(this.saved) : undefined
  }

  /**
   * Puts this network back as `checkpoint()` saved it: every running protocol instance that ran a
   * handler since is replaced by a fresh one from its factory, restored from its snapshot (its
   * `start` not run), with the same timers pending; the others are kept as they are. The trace, if kept, loses what came after. A checkpoint can be
   * restored any number of times. Cancelled events are not kept, so `pending`, which counts them
   * until they are skipped, may come out lower.
   */
  restoreCheckpoint(checkpoint: SimCheckpoint): void {
    loadCheckpoint(this.saved, checkpoint)
  }

  /**
   * `fingerprint()` for a key: each node's state and each message in flight as canonical text,
   * cached (a node's until one of its handlers runs), so `canonicalKey` of it writes the same text
   * as of `fingerprint()` at a fraction of the cost.
   */
  keyFingerprint(): SimFingerprint | undefined {
    return fingerprintOf(this.sourceOfFingerprint(), canonicalKey, this.keyParts)
  }

  private readonly keyParts = cachedParts(this.nodes)

  /**
   * `keyFingerprint()` as a 64-bit hash, written into `into`, without its text (see `keyHashOf`):
   * what the stateful explorer keys its visited set by. False when there is no fingerprint. With an
   * `abstraction` that applies to the state, what it keeps stands for the nodes and messages;
   * `taken` is told the renaming it used, if any.
   */
  keyHash(into: Hash64, abstraction?: KeyAbstraction, taken?: KeyTaken): boolean {
    this.explorerAsks()
    const source = this.sourceOfFingerprint()
    return keyHashOf(source, source.ids, this.keyParts, canonicalKey, into, abstraction, taken)
  }

  /**
   * An explorer drives the network from now on: messages are `FullDelivery`s, which keep their key
   * and hash once made (it asks for them state after state), those in flight too.
   */
  private explorerAsks(): void {
    if (this.wire.explored) return
    this.wire.explored = true
    const full = (e: SimEvent) => (e.kind === 'deliver' ? e.full() : e)
    this.queue.replaceEach(full)
    for (const node of this.nodes.values()) node.backlog = node.backlog.map(full)
  }

  private sourceOfFingerprint() {
    this.sortedIds ??= this.nodeIds
    return {
      nodes: this.nodes,
      ids: this.sortedIds,
      queue: this.queue,
      links: this.links,
      partitioned: this.wire.partitioned,
      time: this.time,
    }
  }

  // ---- running -----------------------------------------------------------------------------

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
    const queue = this.queue
    let events = 0
    for (;;) {
      // `loop`'s steps, inlined: this is every run's hot loop.
      const next = queue.peek()
      if (next === undefined || next.t > until) break
      if (events >= maxEvents) {
        throw new SimulationError(
          `run() did not quiesce within ${maxEvents} events: the protocol keeps itself busy (periodic timers?); use run({ until }) or raise maxEvents`,
          this.seed,
          this.time,
        )
      }
      this.process(queue.popPeeked())
      events++
    }
    return this.loop.finish(events, until)
  }

  /** Runs for `ms` more of virtual time. */
  runFor(ms: number, maxEvents?: number): RunResult {
    return this.run({ until: this.time + ms, ...(maxEvents === undefined ? {} : { maxEvents }) })
  }

  /**
   * Runs with virtual time mapped onto real time (for demos): `speed` 2 runs twice as fast as real.
   * Resolves at quiescence or at `until`; rejects with the signal's reason when aborted.
   */
  runRealtime(options: RealtimeOptions = {}): Promise<RunResult> {
    return runRealtime(this.loop, options)
  }

  // ---- trace -------------------------------------------------------------------------------

  /** The events recorded so far (empty when tracing is off). */
  get trace(): readonly TraceEvent[] {
    return this.recorder.events
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

  /** What a node's transport sends. */
  private sendFrom(from: SimNode, to: NodeId, msg: unknown): void {
    // Request and reply, ping-pong: a node often sends where it sent last, found without the map.
    let route = from.lastRoute
    if (route === undefined || route.to.id !== to) {
      route = from.routes.get(to) ?? this.routeTo(from, to)
      from.lastRoute = route
    }
    this.wire.send(route, msg)
  }

  /** The first send from `from` to `to` makes their route (nodes are never removed). */
  private routeTo(from: SimNode, to: NodeId): Route {
    const target = this.nodes.get(to)
    if (target === undefined) throw new UnknownNodeError(to, `send from ${JSON.stringify(from.id)}`)
    return routeOf(from, target)
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
      if (this.wire.arrive(event)) this.guardedDeliver(event)
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

  /** `guardRaw` for a delivery, without a closure per message (the hot path of every run). */
  private guardedDeliver(event: DeliverEvent): void {
    try {
      event.to.transport.deliver(event.from.id, event.msg)
    } catch (cause) {
      this.failed(event.to, cause)
    }
  }

  /** Exceptions from raw handlers or scheduled actions also stop the run, with the seed. */
  private guardRaw(node: SimNode | undefined, body: () => void): void {
    try {
      body()
    } catch (cause) {
      this.failed(node, cause)
    }
  }

  /** A node's handler (or a planned action) threw: the run stops with a SimulationError. */
  private failed(node: SimNode | undefined, cause: unknown): void {
    if (this.failure) return
    const message = cause instanceof Error ? cause.message : String(cause)
    if (node) this.recorder.record({ t: this.time, type: 'error', node: node.id, message })
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

  private throwFailure(): void {
    if (this.failure) throw this.failure
  }

  /**
   * Starts the node's protocol: a fresh instance from its factory, started; or, with `resumed`,
   * one restored from a checkpoint's state, its saved timers re-armed (returned, in their order).
   */
  private startProtocol(
    node: SimNode,
    resumed?: { state: unknown; timers: readonly CallEvent[] },
  ): CallEvent[] {
    const factory = node.factory!
    const kept = node.host
    if (
      resumed !== undefined &&
      kept !== undefined &&
      node.handle !== undefined &&
      !node.handle.stopped &&
      kept.members === node.members &&
      kept.factory === factory
    )
      return this.rebindProtocol(node, kept, factory, resumed)
    node.handle?.stop()
    const host: RuntimeHost = {
      rearm: resumed === undefined ? [] : [...resumed.timers],
      rearmed: [],
      random: undefined,
      members: node.members,
      factory,
    }
    node.host = host
    const scheduler: TimerScheduler = {
      schedule: (ms, fire, name) => {
        const label = name ?? ''
        let timer: CallEvent
        const run = () => {
          this.counters.timersFired++
          // As the runtime does: only the timer now set under its key fires.
          if (node.armed.get(label) === timer) node.armed.delete(label)
          fire()
        }
        const saved = host.rearm.shift()
        if (saved !== undefined) {
          // Due when it was, under its own key and seq; the checkpoint puts it where it was.
          timer = { ...saved, cancelled: false, run }
          host.rearmed.push(timer)
        } else {
          const key = `t:${String(node.id)}#${++node.timersSet}`
          timer = this.schedule(this.time + node.clock.toTrue(ms), node, key, node.id, true, run)
          timer.label = name
          node.timers.add(timer)
        }
        node.armed.set(label, timer)
        return timer
      },
      cancel: (handle) => {
        const timer = handle as CallEvent
        timer.cancelled = true
        node.timers.delete(timer)
        const label = timer.label ?? ''
        if (node.armed.get(label) === timer) node.armed.delete(label)
      },
    }
    if (resumed === undefined) this.recorder.record({ t: this.time, type: 'start', node: node.id })
    const protocol = factory(node.id)
    node.stateText?.release()
    node.stateText = undefined
    if (resumed !== undefined) protocol.restore!(restoredState(protocol, resumed.state))
    node.protocol = protocol
    node.locator = partLocatorOf(protocol)
    if (resumed === undefined) node.draws = 0
    // Made on the first draw (most protocols never draw), where the node's stream stands.
    const stream = () => {
      const made = createRandom(`node/${this.seed}/${String(node.id)}/${node.incarnation}`).next
      for (let i = 0; i < node.draws; i++) made()
      return made
    }
    node.storage.input = undefined
    node.handle = runProtocol(protocol, {
      transport: node.transport,
      members: node.members,
      clock: { now: () => node.clock.read(this.time) },
      monotonic: { now: () => node.clock.monotonic(this.time) },
      timers: scheduler,
      random: () => {
        host.random ??= stream()
        node.draws++
        return host.random()
      },
      storage: node.storage.backend(),
      observer: {
        ...this.recorder.observer(),
        onInput: (_id, input) => {
          node.storage.input = input
          node.inputs++
          node.stateText?.release() // the handler may change the state
          node.stateText = undefined
        },
      },
      onEvent: (event) => {
        for (const listener of this.emitListeners) listener(node.id, event, this.time)
      },
      onError: (error: ProtocolError) => {
        if (error.cause instanceof PlannedCrash) return
        this.recorder.record({ t: this.time, type: 'error', node: node.id, message: error.message })
        this.failure ??= new SimulationError(error.message, this.seed, this.time, node.id, error)
      },
      ...(resumed === undefined ? {} : { resume: { timers: resumed.timers.map((t) => t.label!) } }),
    })
    if (node.crashed) node.handle = undefined // crashed while starting
    return host.rearmed
  }

  /**
   * `startProtocol` resuming a restored instance on the node's running runtime instead of a new
   * one (a checkpoint's load: most of a restore's cost was building the runtime).
   */
  private rebindProtocol(
    node: SimNode,
    host: RuntimeHost,
    factory: NonNullable<SimNode['factory']>,
    resumed: { state: unknown; timers: readonly CallEvent[] },
  ): CallEvent[] {
    const protocol = factory(node.id)
    node.stateText?.release()
    node.stateText = undefined
    protocol.restore!(restoredState(protocol, resumed.state))
    node.protocol = protocol
    node.locator = partLocatorOf(protocol)
    host.random = undefined
    host.rearm = [...resumed.timers]
    host.rearmed = []
    node.storage.input = undefined
    const labels = resumed.timers.map((t) => t.label!)
    rebinderOf(node.handle!).rebind(protocol, labels)
    return host.rearmed
  }
}
