import type { NodeId } from '../ids.js'

/** Why the simulator did not deliver a message. */
export type DropReason =
  | 'loss'
  | 'partition'
  /** the receiver was down when the message arrived */
  | 'receiver-crashed'
  /** the receiver's transport was closed */
  | 'receiver-closed'
  /** the sender was down (a raw transport used while its node is crashed) */
  | 'sender-crashed'

/**
 * One thing that happened in a simulation. `t` is virtual time in ms. Messages carry `id`,
 * shared by their send, their deliveries (a duplicate delivers the same id twice) and their drop.
 * A `send` with `resendOf` is the link's retransmission of message `resendOf`, whose earlier
 * transmission was lost (see that message's `drop`); it has an `id` of its own.
 * `proto` names the child of a composed protocol a message, timer, event or request belongs to
 * (`'lock'`, or `'app/lock'` for compositions within compositions); absent otherwise.
 * Plain JSON: the playground and the visualizer read it.
 */
export type TraceEvent =
  | {
      t: number
      type: 'send'
      id: number
      from: NodeId
      to: NodeId
      msg: unknown
      proto?: string
      /**
       * This is the link's retransmission of message `resendOf`, whose earlier transmission was
       * lost (see its `drop`).
       */
      resendOf?: number
    }
  | {
      t: number
      type: 'deliver'
      id: number
      from: NodeId
      to: NodeId
      sentAt: number
      proto?: string
    }
  | {
      t: number
      type: 'drop'
      id: number
      from: NodeId
      to: NodeId
      reason: DropReason
      proto?: string
    }
  | { t: number; type: 'duplicate'; id: number; from: NodeId; to: NodeId; proto?: string }
  | { t: number; type: 'timer-set'; node: NodeId; key: string; ms: number; proto?: string }
  | { t: number; type: 'timer-fire'; node: NodeId; key: string; proto?: string }
  | { t: number; type: 'timer-cancel'; node: NodeId; key: string; proto?: string }
  | { t: number; type: 'request'; node: NodeId; req: unknown; dropped?: true; proto?: string }
  | { t: number; type: 'emit'; node: NodeId; event: unknown; proto?: string }
  | {
      t: number
      type: 'storage'
      node: NodeId
      /** Keys written, with their new values. */
      set: Record<string, unknown>
      /** Keys deleted. */
      deleted: string[]
      /** `discarded`: the node crashed before the handler's writes became durable. */
      outcome: 'committed' | 'discarded'
    }
  | { t: number; type: 'start'; node: NodeId }
  | { t: number; type: 'crash'; node: NodeId }
  | { t: number; type: 'restart'; node: NodeId; storageWiped?: true }
  | { t: number; type: 'partition'; groups: NodeId[][] }
  | { t: number; type: 'heal' }
  /** From t on, the network drops `percent` % of the packets (a fault the runner injects); `percent: 0` ends it. */
  | { t: number; type: 'loss'; percent: number }
  /** A moment the runner names, for viewers (the cluster marks `workload starts`). */
  | { t: number; type: 'mark'; label: string }
  | { t: number; type: 'clock'; node: NodeId; offset: number; drift: number; resolution?: number }
  /** The node's wall clock jumped by `deltaMs` (its monotonic clock did not). */
  | { t: number; type: 'clock-step'; node: NodeId; deltaMs: number }
  /** The node stopped running handlers (SIGSTOP, a long pause); its clocks go on. */
  | { t: number; type: 'pause'; node: NodeId }
  /** The node runs again; `backlog` events that waited for it are handled now, in order. */
  | { t: number; type: 'resume'; node: NodeId; backlog: number }
  | { t: number; type: 'error'; node: NodeId; message: string }

/** The whole trace file: `sd run --trace FILE` writes this. */
export interface TraceDocument {
  format: 'sd-trace'
  version: 1
  seed: number | string
  nodes: NodeId[]
  events: TraceEvent[]
}

/** Envelopes looked through at most, so a deep nesting cannot run away. */
const MAX_ENVELOPES = 16

/**
 * The `type` of a message for counting: its string `type` field if it has one. A composed
 * child's message, `{ proto, msg }`, counts as the child's own message.
 */
export function messageType(msg: unknown): string {
  let inner = msg
  for (let depth = 0; depth <= MAX_ENVELOPES; depth++) {
    if (inner === null || typeof inner !== 'object') return typeof inner
    const { type, proto } = inner as { type?: unknown; proto?: unknown }
    if (typeof type === 'string') return type
    if (typeof proto !== 'string' || !Object.hasOwn(inner, 'msg'))
      return Array.isArray(inner) ? 'array' : 'object'
    inner = (inner as { msg: unknown }).msg
  }
  return 'object'
}

/**
 * The faults of a run as checkers read them: the simulator's own trace entries, and the same
 * shapes written by anything else that runs nodes (the cluster's nemesis), so one checker judges
 * both. `t` is in the run's one time base (virtual time; machine time for real processes).
 */
export type FaultEvent = Extract<
  TraceEvent,
  { type: 'crash' | 'restart' | 'pause' | 'resume' | 'partition' | 'heal' | 'loss' | 'clock-step' }
>

const FAULT_TYPES: ReadonlySet<string> = new Set([
  'crash',
  'restart',
  'pause',
  'resume',
  'partition',
  'heal',
  'loss',
  'clock-step',
])

/** The fault entries of a trace, in order. */
export function faultsOf(events: readonly TraceEvent[]): FaultEvent[] {
  return events.filter((e): e is FaultEvent => FAULT_TYPES.has(e.type))
}

/**
 * One emitted event, as checkers take them: who, when (trace time), what. `Ev` is the emitting
 * protocol's event type (`LaunchedGroup.onEmit` gives it); unknown when read back from a trace.
 */
export interface TimedEvent<Ev = unknown> {
  node: NodeId
  t: number
  event: Ev
}

/** An emitted event of any protocol (the name `emitsOf` had first). */
export type EmittedEvent = TimedEvent

/**
 * The events nodes emitted, in order. With `proto`, only the events of that child of a composed
 * protocol (`{ proto, event }` entries), unwrapped; a nested child is named by its path (`app/lock`).
 * `Ev` names the event type the caller knows the protocol emits: a trace is plain JSON, so it is
 * taken on trust, not checked.
 */
export function emitsOf<Ev = unknown>(
  events: readonly TraceEvent[],
  proto?: string,
): TimedEvent<Ev>[] {
  const out: TimedEvent<Ev>[] = []
  for (const e of events) {
    if (e.type !== 'emit') continue
    if (proto === undefined) out.push({ node: e.node, t: e.t, event: e.event as Ev })
    else if (e.proto === proto) {
      out.push({ node: e.node, t: e.t, event: unwrap(e.event, proto) as Ev })
    }
  }
  return out
}

/** `{ proto: 'app', event: { proto: 'lock', event: x } }` with path `app/lock` is x. */
function unwrap(event: unknown, path: string): unknown {
  let inner = event
  for (const _ of path.split('/')) {
    if (inner === null || typeof inner !== 'object' || !('event' in inner)) return inner
    inner = (inner as { event: unknown }).event
  }
  return inner
}
