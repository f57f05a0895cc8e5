/**
 * `@sd/timesync/udp`: the NTP client and server over `node:dgram`, apart from the main entry so
 * that the pure parts (clocks, algorithms, packets) load anywhere, browsers included.
 */

export {
  type NtpSource,
  type NtpSourceOutcome,
  type NtpSourcesResult,
  queryNtpSources,
} from './ntp/sources-udp.js'
export { systemClock, type UnixClock } from './ntp/system-clock.js'
export {
  type CreateNtpServerOptions,
  createNtpServer,
  DEFAULT_SERVER_PORT,
  NTP_PORT,
  type NtpQueryResult,
  type NtpServerHandle,
  type QueryNtpOptions,
  queryNtp,
} from './ntp/udp.js'
