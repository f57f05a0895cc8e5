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
 * `proto` names the child of a composed protocol a message, timer, event or request belongs to
 * (`'lock'`, or `'app/lock'` for compositions within compositions); absent otherwise.
 * Plain JSON: the playground and the visualizer read it.
 */
export type TraceEvent =
  | { t: number; type: 'send'; id: number; from: NodeId; to: NodeId; msg: unknown; proto?: string }
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
