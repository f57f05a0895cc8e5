export type { RicartAgrawalaEvent } from './events.js'
export type { RicartAgrawalaMessage } from './messages.js'
export { DEFAULT_ANSWER_TIMEOUT_MS, type RicartAgrawalaOptions } from './options.js'
export { ricartAgrawala } from './protocol.js'
