/**
 * NTP (RFC 5905), the pure part: timestamps and packets, the on-wire calculation, the clock
 * filter, source selection, a client and a server that take bytes and times as arguments. The
 * UDP adapter (`queryNtp`, `createNtpServer`, `systemClock`) needs Node and is exported from
 * `@sd/timesync/udp` (src/udp.ts), so that this entry loads anywhere.
 */
export {
  createNtpRequest,
  DEFAULT_MAX_OFFSET_MS,
  DEFAULT_PRECISION_LOG2,
  MAX_ROOT_DISTANCE_MS,
  type NtpRequest,
  type NtpRequestOptions,
  type NtpSample,
  type SampleOptions,
  sampleFromReply,
  validateReply,
} from './client.js'
export {
  InvalidArgumentError,
  NTP_REJECT_REASONS,
  NtpAbortedError,
  NtpNetworkError,
  NtpRejectedError,
  type NtpRejectReason,
  NtpTimeoutError,
} from './errors.js'
export { CLOCK_FILTER_SIZE, ClockFilter, type FilterSample } from './filter.js'
export {
  FREQUENCY_TOLERANCE,
  type OnWireOptions,
  type OnWireResult,
  type OnWireTimes,
  onWire,
} from './on-wire.js'
export {
  decodePacket,
  describeReferenceId,
  encodePacket,
  type LeapIndicator,
  NTP_MODE,
  NTP_PACKET_BYTES,
  NTP_VERSION,
  type NtpMode,
  type NtpPacket,
  referenceIdToText,
  textToReferenceId,
} from './packet.js'
export {
  type MajoritySelection,
  type NoMajority,
  type OffsetInterval,
  type Selection,
  type SourceEstimate,
  selectSources,
} from './select.js'
export {
  answerNtpRequest,
  DEFAULT_SERVER_REFERENCE_ID,
  DEFAULT_SERVER_STRATUM,
  type NtpServerOptions,
  type ResolvedNtpServerOptions,
  resolveServerOptions,
  validateRequest,
} from './server.js'
export {
  isZeroTimestamp,
  log2SecondsToMs,
  NTP_ERA_S,
  NTP_UNIX_OFFSET_S,
  type NtpTimestamp,
  ntpDifferenceMs,
  ntpTimestampEquals,
  ntpToUnixMs,
  secondsToShort,
  shortToSeconds,
  unixMsToNtp,
  ZERO_TIMESTAMP,
} from './timestamp.js'
