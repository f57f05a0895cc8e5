export {
  type BerkeleyEvent,
  type BerkeleyMessage,
  type BerkeleyMsg,
  type BerkeleyOptions,
  type BerkeleyRequest,
  type BerkeleyRoundEvent,
  berkeley,
  type Estimate,
  type FaultTolerantAverage,
  faultTolerantAverage,
} from './berkeley/index.js'
export {
  type ClockSyncCheckOptions,
  type ClockSyncVerdict,
  type ClockSyncViolation,
  checkClockSync,
} from './check.js'
export {
  type Correction,
  DisciplinedClock,
  type DisciplinedClockSnapshot,
  type DisciplinePolicy,
} from './clock/disciplined.js'
export { PhysicalClock, type PhysicalClockSettings, QUARTZ_DRIFT } from './clock/physical.js'
export { onSharedClock } from './compose.js'
export type {
  AdjustedEvent,
  IgnoredEvent,
  SyncAlgorithm,
  SyncFailedEvent,
  SyncRequest,
} from './contract.js'
export {
  type CristianEvent,
  type CristianMessage,
  type CristianMsg,
  type CristianOptions,
  cristian,
} from './cristian/index.js'
export {
  ClockUnsynchronizedError,
  LeaseLostError,
  type LeaseLostReason,
  TimeWaitAbortedError,
  type UnsynchronizedStatus,
} from './errors.js'
export * from './interval/index.js'
export * from './ntp/index.js'
export {
  type NtpFilterFlushedEvent,
  type NtpRejectEvent,
  type NtpSelectionEvent,
  type NtpSimEvent,
  type NtpSimMessage,
  type NtpSimMsg,
  type NtpSimOptions,
  ntpSim,
} from './ntp-sim/index.js'
export {
  type TemporalDeliverEvent,
  type TemporalEvent,
  type TemporalMessage,
  type TemporalMsg,
  type TemporalOptions,
  type TemporalRequest,
  temporalOrder,
} from './temporal/index.js'
