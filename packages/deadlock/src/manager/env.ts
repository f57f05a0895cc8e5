import type { NodeId } from '@sd/transport'
import type { ManagerMessage } from './messages.js'
import type { ManagerCtx } from './protocol.js'

/**
 * What the parts of a site share: its id, where resources live, and sending. It holds no `ctx`:
 * each call is given the one of the handler running, so every effect belongs to that step.
 */
export interface SiteEnv {
  readonly self: NodeId
  /** Every site of the manager, ascending (`compareNodeIds`). */
  sites(ctx: ManagerCtx): readonly NodeId[]
  siteOf(resource: string): NodeId
  /** Sends to a site; to this site itself, the message is handled right after the current one. */
  send(to: NodeId, msg: ManagerMessage, ctx: ManagerCtx): void
}
