import type { CanonicalText } from '../canonical.js'
import type { PartLocator } from '../compose/parts.js'
import type { NodeId } from '../ids.js'
import type { Protocol, ProtocolFactory } from '../protocol.js'
import type { ProtocolHandle } from '../runtime/driver.js'
import type { Delivery } from './delivery.js'
import type { Scheduled } from './event-queue.js'
import type { NodeFingerprint } from './fingerprint.js'
import type { AbstractHash } from './key-abstraction.js'
import type { EntryHash } from './key-hash.js'
import type { Route } from './link-name.js'
import type { NodeClock } from './node-clock.js'
import type { SimStorage } from './sim-storage.js'
import type { SimTransport } from './sim-transport.js'
import type { SnapshotText } from './snapshot-text.js'

/** What the network knows of one node (internal to the simulator). */
export interface SimNode {
  readonly id: NodeId
  readonly transport: SimTransport<unknown>
  readonly clock: NodeClock
  /** Its disk, kept across crashes and restarts. */
  readonly storage: SimStorage
  crashed: boolean
  incarnation: number
  group: number
  members: readonly NodeId[]
  /** Timers set and requests planned so far: they name those events stably. */
  timersSet: number
  requests: number
  factory: ProtocolFactory<unknown, unknown, unknown> | undefined
  /** The running instance (its `snapshot` is the node's volatile state). */
  protocol: Protocol<unknown, unknown, unknown> | undefined
  /** Numbers this incarnation drew from `ctx.random`: where its seeded stream stands. */
  draws: number
  handle: ProtocolHandle<unknown, unknown> | undefined
  /** Timers of the current incarnation, cancelled on crash. */
  timers: Set<CallEvent>
  /**
   * The timer its runtime has pending under each key, as the runtime keeps it: set, replaced,
   * cancelled, fired (a checkpoint re-arms these; a timer taken early leaves `timers` yet waits).
   */
  armed: Map<string, CallEvent>
  /** Handlers its runtimes began so far: none since a checkpoint means its instance is as saved. */
  inputs: number
  /** Paused: the node runs no handler; what comes for it waits in `backlog`. */
  paused: boolean
  /** Deliveries, timers and requests that came due while the node was paused, in order. */
  backlog: SimEvent[]
  /** Names the child of a composed protocol behind a message, timer, event or request. */
  locator: PartLocator | undefined
  /** The running instance's snapshot as a key part, until a handler of it runs. */
  stateText: SnapshotText | undefined
  /** Its last fingerprint entry and that entry's text: the same entry has the same text. */
  entryText: { entry: NodeFingerprint; text: CanonicalText } | undefined
  /** Its last entry's hash, with what it was mixed from (see `keyHashOf`). */
  entryHash: EntryHash | undefined
  /** What a key abstraction kept of its state and disk, hashed (see `abstractNodeHash`). */
  abstractHash: AbstractHash[] | undefined
  /** The routes of the messages it sent, by the receiver's id (see `routeOf`). */
  routes: Map<NodeId, Route>
  /** The route it last sent on, tried before `routes` (a reply goes where the last one went). */
  lastRoute: Route | undefined
  /** What its runtime's scheduler and random source read, kept to rebind a restored instance. */
  host: RuntimeHost | undefined
}

/** See `SimNode.host`: the runtime's settings, and what a resume re-arms. */
export interface RuntimeHost {
  /** Saved timers still to re-arm, in order, and the ones re-armed so far. */
  rearm: CallEvent[]
  rearmed: CallEvent[]
  /** The node's random stream, made on its first draw. */
  random: (() => number) | undefined
  members: readonly NodeId[]
  factory: ProtocolFactory<unknown, unknown, unknown>
}

export type SimEvent = DeliverEvent | CallEvent

/** A message in flight (see `Delivery`: a compact record, its key and ends derived). */
export type DeliverEvent = Delivery

export interface CallEvent extends Scheduled {
  kind: 'call'
  node: SimNode | undefined
  run: () => void
  key: string
  /** The node whose state it touches (a timer's, a request's), or undefined for a plan action. */
  owner: NodeId | undefined
  timer: boolean
  /** A timer's key as the protocol set it. */
  label?: string
}
