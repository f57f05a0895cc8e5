export type { ManagerEvent } from './events.js'
export type { ManagerMessage, ManagerMsg, PathEntry, ProcRef, SiteWait } from './messages.js'
export { parseMessage } from './messages.js'
export {
  DEFAULT_RESTART_AFTER_MS,
  type ResourceManagerOptions,
  type ResourceManagerSettings,
  resolveOptions,
} from './options.js'
export { type ManagerCtx, type ResourceManagerProtocol, resourceManager } from './protocol.js'
export type { Prevention } from './resources.js'
