export type { ChangRobertsEvent } from './events.js'
export type { ChangRobertsMessage } from './messages.js'
export type { ChangRobertsOptions } from './options.js'
export { changRoberts } from './protocol.js'
