import type { Ctx, NodeId } from '@sd/transport'
import type { DeadlockManagerEvent } from '../contract.js'
import type { ManagerMsg } from './messages.js'

/** What the parts of a site share: its id, where resources live, sending and emitting. */
export interface SiteEnv {
  readonly self: NodeId
  /** Every site of the manager, ascending. */
  readonly sites: readonly NodeId[]
  siteOf(resource: string): NodeId
  /** Sends to a site; to this site itself, the message is handled right after the current one. */
  send(to: NodeId, msg: ManagerMsg): void
  emit(event: DeadlockManagerEvent): void
  ctx(): Ctx<ManagerMsg, DeadlockManagerEvent>
}
