import { isNonNegInt, isUnknown, messageParser } from '@sd/transport'
import { isMs } from '../wire.js'

export interface TemporalMessage<P = unknown> {
  type: 'temporal'
  /** The sender's synchronized clock when it broadcast. */
  ts: number
  seq: number
  payload: P
}

/** @deprecated Use TemporalMessage. */
export type TemporalMsg<P = unknown> = TemporalMessage<P>

/** A peer's message typed, or why it is refused; the payload is the application's, unchecked. */
export const parseMessage = messageParser<TemporalMessage>({
  temporal: { ts: isMs, seq: isNonNegInt, payload: isUnknown },
})
