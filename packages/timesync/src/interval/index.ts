export {
  type ClockReading,
  type ClockStep,
  IntervalClock,
  type IntervalStatus,
  type SynchronizedInterval,
  type SyncSample,
  type TimeInterval,
  type UnsynchronizedInterval,
} from './interval-clock.js'
export {
  createIntervalLease,
  DEFAULT_LEASE_CHECK_EVERY_MS,
  IntervalLease,
  type IntervalLeaseOptions,
  type LeaseHold,
  type PlatformAbortSignal,
} from './interval-lease.js'
export {
  checkLeaseTerms,
  type GrantVerdict,
  grantVerdict,
  type HoldVerdict,
  holdVerdict,
  type LeaseTerms,
} from './lease.js'
export {
  DEFAULT_MAX_DRIFT_PPM,
  DEFAULT_MAX_SYNC_AGE_MS,
  DEFAULT_STEP_TOLERANCE_MS,
  type IntervalClockOptions,
  type IntervalClockSettings,
} from './options.js'
export { sampleFromAdjusted } from './sync-sample.js'
export {
  type AbortSignalLike,
  IntervalTimeSource,
  type IntervalTimeSourceOptions,
  type LocalClocks,
  type OffsetMeasurement,
  systemClocks,
  type Timers,
} from './time-source.js'
