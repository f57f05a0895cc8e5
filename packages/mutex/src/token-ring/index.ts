export {
  GENERATION_UNIT,
  type TokenRingEvent,
  type TokenRingMessage,
  type TokenState,
} from './messages.js'
export type { TokenRingOptions } from './options.js'
export { tokenRing } from './protocol.js'
