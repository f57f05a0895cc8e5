export type { CristianEvent } from './events.js'
export type { CristianMessage, CristianMsg } from './messages.js'
export type { CristianOptions } from './options.js'
export { cristian } from './protocol.js'
