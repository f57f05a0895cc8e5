/**
 * The shapes of this package's messages, checked on arrival: a peer may send anything, and a
 * reading of `NaN` or `1e308` folded into a clock would break every bound the package reports.
 * A message that does not fit is dropped and reported as an `ignored` event.
 */
import {
  arrayOf,
  intIn,
  isNonNegInt,
  isUnknown,
  messageParser,
  type NodeId,
  numberIn,
} from '@sd/transport'
import type { BerkeleyMsg } from './berkeley/protocol.js'
import type { CristianMsg } from './cristian/protocol.js'
import type { NtpSimMsg } from './ntp-sim/protocol.js'
import type { TemporalMsg } from './temporal/protocol.js'

/** A message dropped unread: it did not have the shape of one of the protocol's messages. */
export interface IgnoredEvent {
  type: 'ignored'
  from: NodeId
  reason: string
}

/** A clock reading or an offset, in ms: finite and within ±2^53 (285,000 years). */
const isMs = numberIn(-(2 ** 53), 2 ** 53)
const isSpanMs = numberIn(0, 2 ** 53)

export const parseCristianMessage = messageParser<CristianMsg>({
  'time-request': { seq: isNonNegInt },
  'time-reply': { seq: isNonNegInt, utcMs: isMs, handlingMs: isSpanMs },
})

export const parseBerkeleyMessage = messageParser<BerkeleyMsg>({
  'berkeley-poll': { round: isNonNegInt },
  'berkeley-time': { round: isNonNegInt, clockMs: isMs },
  'berkeley-adjust': { round: isNonNegInt, adjustMs: isMs, errorBoundMs: isSpanMs },
})

/** An NTP packet's bytes: 48 of header, extension fields and a MAC after it, within a datagram. */
export const parseNtpSimMessage = messageParser<NtpSimMsg>({
  ntp: { bytes: arrayOf(intIn(0, 255), { max: 1500 }) },
})

export const parseTemporalMessage = messageParser<TemporalMsg>({
  temporal: { ts: isMs, seq: isNonNegInt, payload: isUnknown },
})
