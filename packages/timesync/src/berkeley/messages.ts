import { isNonNegInt, messageParser } from '@sd/transport'
import { isMs, isSpanMs } from '../wire.js'

export type BerkeleyMessage =
  | { type: 'berkeley-poll'; round: number }
  | { type: 'berkeley-time'; round: number; clockMs: number }
  | { type: 'berkeley-adjust'; round: number; adjustMs: number; errorBoundMs: number }

/** @deprecated Use BerkeleyMessage. */
export type BerkeleyMsg = BerkeleyMessage

/** A peer's message typed, or why it is refused. */
export const parseMessage = messageParser<BerkeleyMessage>({
  'berkeley-poll': { round: isNonNegInt },
  'berkeley-time': { round: isNonNegInt, clockMs: isMs },
  'berkeley-adjust': { round: isNonNegInt, adjustMs: isMs, errorBoundMs: isSpanMs },
})
