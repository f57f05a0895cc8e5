import type { NodeId } from '@sd/transport'
import type { CentralizedMessage } from './messages.js'
import type { CentralizedSettings } from './options.js'
import type { CentralizedCtx } from './protocol.js'
import type { MemberView } from './views.js'

/** What the two roles of a node share: who coordinates in which term, and how to reach each other. */
export interface Node {
  readonly settings: CentralizedSettings
  readonly term: number
  readonly coordinator: NodeId
  /** This node's incarnation (1 on the first start, +1 on each restart). */
  readonly epoch: number
  /** The view this node follows (view 0: the launch group). */
  readonly group: MemberView
  /**
   * Whether the coordinator may grant or renew now: it coordinates the newest term this node knows
   * and, with `leaderLease`, holds a leader lease of that term valid on `ctx.monotonic()` now.
   */
  mayGrant(ctx: CentralizedCtx): boolean
  /** To the coordinator: a local call when this node is the coordinator (no message). */
  toCoordinator(msg: CentralizedMessage, ctx: CentralizedCtx): void
  /** From the coordinator to a client: a local call when the client is this node. */
  toClient(node: NodeId, msg: CentralizedMessage, ctx: CentralizedCtx): void
}
