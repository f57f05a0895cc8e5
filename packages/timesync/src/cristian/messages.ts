import { isNonNegInt, messageParser } from '@sd/transport'
import { isMs, isSpanMs } from '../wire.js'

export type CristianMessage =
  | { type: 'time-request'; seq: number }
  | { type: 'time-reply'; seq: number; utcMs: number; handlingMs: number }

/** @deprecated Use CristianMessage. */
export type CristianMsg = CristianMessage

/** A peer's message typed, or why it is refused. */
export const parseMessage = messageParser<CristianMessage>({
  'time-request': { seq: isNonNegInt },
  'time-reply': { seq: isNonNegInt, utcMs: isMs, handlingMs: isSpanMs },
})
