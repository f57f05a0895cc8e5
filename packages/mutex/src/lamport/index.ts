export type { LamportMutexEvent, LamportMutexMessage } from './messages.js'
export type { LamportMutexOptions } from './options.js'
export { lamportMutex } from './protocol.js'
