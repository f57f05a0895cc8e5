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
