import { type Hold, isExclusive, type Want } from './kinds.js'
import type { BurstSettings } from './options.js'

/**
 * Option `burst`: one exclusive or permit grant covers up to `burst` entries in a row of its holder.
 *
 * Why: a holder that loops (leave, then acquire again at once) pays a REQUEST and a GRANT per
 * entry, and in a queue that always has others waiting it gets one entry per turn of them, however
 * fast it is. With a burst, the coordinator reserves `burst` fencing tokens when it grants (the
 * counter it stores jumps to the last of them before the GRANT leaves); the client, on leaving,
 * keeps the grant until the end of the current turn of its event loop (a 0 ms timer) and, when the
 * next acquire comes before that and asks for the same hold again (a plain exclusive entry, or the
 * same `permits: { take, of }`), enters again at once with the next token. Otherwise (the timer
 * fires, the burst is used up, another kind of entry is asked) it sends the RELEASE. The
 * coordinator sees one holder from the GRANT to the RELEASE, as before: every message about the
 * grant (RELEASE, RENEW, STOLEN-ACK, a SYNC's claim) carries the grant's first token; only the
 * client's events carry each entry's own.
 *
 * What it keeps: what the holders hold together (nobody else is granted what the kept grant holds
 * before the RELEASE: a kept exclusive grant excludes everyone, kept permits stay counted out);
 * tokens strictly increase from entry to entry of a grant, and every later grant's token is above
 * the reserved ones; the lease covers every entry of the grant (a re-entry after the lease ran out
 * asks again); nobody starves: a request waiting behind the holder waits at most `burst - 1`
 * entries more than it would have.
 *
 * Shared grants are never kept: a reader never waits for another reader, so a kept shared grant
 * would only pass a waiting writer, which is the reader policy's call (`'readers-first'`), not the
 * burst's.
 */
export function burstOf(want: Want, burst: BurstSettings): number {
  if (want.steal === true) return 1
  if (want.permits !== undefined) return burst.permits
  return isExclusive(want) ? burst.exclusive : 1
}

/** Whether an acquire asking for `want` may enter on a kept grant that held `held`: the same hold. */
export function reusesGrant(want: Want, held: Hold): boolean {
  if (want.steal === true) return false
  if (want.permits !== undefined) {
    return held.permits?.take === want.permits.take && held.permits.of === want.permits.of
  }
  return isExclusive(want) && isExclusive(held)
}

/** The timer that gives a kept grant back at the end of the turn, per resource. */
export const GIVE_BACK = 'give-back:'
