export type {
  NtpFilterFlushedEvent,
  NtpRejectEvent,
  NtpSelectionEvent,
  NtpSimEvent,
} from './events.js'
export type { NtpSimMessage, NtpSimMsg } from './messages.js'
export type { NtpSimOptions } from './options.js'
export { ntpSim } from './protocol.js'
