export {
  type Estimate,
  type FaultTolerantAverage,
  faultTolerantAverage,
} from './berkeley/average.js'
export {
  type BerkeleyEvent,
  type BerkeleyMsg,
  type BerkeleyOptions,
  type BerkeleyRequest,
  type BerkeleyRoundEvent,
  berkeley,
} from './berkeley/protocol.js'
export { type Correction, DisciplinedClock, type DisciplinePolicy } from './clock/disciplined.js'
export { PhysicalClock, type PhysicalClockSettings, QUARTZ_DRIFT } from './clock/physical.js'
export { onSharedClock } from './compose.js'
export type { AdjustedEvent, SyncAlgorithm, SyncFailedEvent, SyncRequest } from './contract.js'
export {
  type CristianEvent,
  type CristianMsg,
  type CristianOptions,
  cristian,
} from './cristian/protocol.js'
export * from './ntp/index.js'
export {
  type NtpRejectEvent,
  type NtpSelectionEvent,
  type NtpSimEvent,
  type NtpSimMsg,
  type NtpSimOptions,
  ntpSim,
} from './ntp-sim/protocol.js'
export {
  type TemporalDeliverEvent,
  type TemporalEvent,
  type TemporalMsg,
  type TemporalOptions,
  type TemporalRequest,
  temporalOrder,
} from './temporal/protocol.js'
export type { IgnoredEvent } from './wire.js'
