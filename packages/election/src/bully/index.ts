export type { BullyEvent } from './events.js'
export type { BullyMessage } from './messages.js'
export type { BullyOptions } from './options.js'
export { bully } from './protocol.js'
