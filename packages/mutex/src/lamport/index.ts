export type { LamportMutexEvent } from './events.js'
export type { LamportMutexMessage } from './messages.js'
export type { LamportMutexOptions } from './options.js'
export { lamportMutex } from './protocol.js'
