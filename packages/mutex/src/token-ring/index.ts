export type { TokenRingEvent } from './events.js'
export { GENERATION_UNIT, type TokenRingMessage, type TokenState } from './messages.js'
export type { TokenRingOptions } from './options.js'
export { tokenRing } from './protocol.js'
