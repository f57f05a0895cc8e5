export { CausalBuffer, type CausalBufferSnapshot } from './buffer.js'
export type { CausalDelivery, CausalEvent } from './events.js'
export type { CausalMessage } from './messages.js'
export { type CausalBroadcastRequest, causalBroadcast } from './protocol.js'
