/**
 * Field guards the protocols' message parsers share (each `<algorithm>/messages.ts` builds its
 * parser from them with @sd/transport's `messageParser`). Messages are checked on arrival: a peer
 * may send anything, and a reading of `NaN` or `1e308` folded into a clock would break every
 * bound the package reports. A message that does not fit is dropped and reported as `ignored`.
 */
import { numberIn } from '@sd/transport'

/** A clock reading or an offset, in ms: finite and within ±2^53 (285,000 years). */
export const isMs = numberIn(-(2 ** 53), 2 ** 53)
/** A duration or a bound, in ms: finite, not negative, within 2^53. */
export const isSpanMs = numberIn(0, 2 ** 53)
