export type { TemporalDeliverEvent, TemporalEvent } from './events.js'
export type { TemporalMessage, TemporalMsg } from './messages.js'
export type { TemporalOptions } from './options.js'
export { type TemporalRequest, temporalOrder } from './protocol.js'
