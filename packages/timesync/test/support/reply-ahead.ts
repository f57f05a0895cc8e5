import { encodePacket, type NtpPacket } from '../../src/ntp/packet.js'
import { unixMsToNtp } from '../../src/ntp/timestamp.js'

/** The client's transmit time T1 of the replies below (Unix ms). */
export const T1 = Date.UTC(2026, 0, 1, 12, 0, 0)

/**
 * The reply of a server 250 ms ahead, 5 ms away each way, holding the request 1 ms (T4 = T1 + 11),
 * to a request whose transmit timestamp was `transmit`; `change` overrides any field.
 */
export function replyTo(transmit: NtpPacket['transmitTimestamp'], change: Partial<NtpPacket> = {}) {
  return encodePacket({
    leap: 0,
    version: 4,
    mode: 4,
    stratum: 2,
    poll: 6,
    precision: -20,
    rootDelay: 2 ** -7, // 7.8125 ms, exact in 16.16
    rootDispersion: 2 ** -9, // 1.953125 ms
    referenceId: 0xc000_0201,
    referenceTimestamp: unixMsToNtp(T1 - 60_000),
    originTimestamp: transmit,
    receiveTimestamp: unixMsToNtp(T1 + 5 + 250),
    transmitTimestamp: unixMsToNtp(T1 + 6 + 250),
    ...change,
  })
}
