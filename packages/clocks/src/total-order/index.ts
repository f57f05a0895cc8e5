export type { TotalOrderDelivery, TotalOrderEvent } from './events.js'
export type { TotalOrderMessage } from './messages.js'
export { type TotalOrderRequest, totalOrderBroadcast } from './protocol.js'
export type { TotalOrderSnapshot } from './snapshot.js'
