export type { ChangRobertsEvent, ChangRobertsMessage } from './messages.js'
export type { ChangRobertsOptions } from './options.js'
export { changRoberts } from './protocol.js'
