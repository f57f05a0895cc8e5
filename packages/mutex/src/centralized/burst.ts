import { isExclusive, type Want } from './kinds.js'

/**
 * Option `burst`: one exclusive grant covers up to `burst` entries in a row of its holder.
 *
 * Why: a holder that loops (leave, then acquire again at once) pays a REQUEST and a GRANT per
 * entry, and in a queue that always has readers waiting it gets one entry per turn of the readers,
 * however fast it is. With a burst, the coordinator reserves `burst` fencing tokens when it grants
 * (the counter it stores jumps to the last of them before the GRANT leaves); the client, on leaving,
 * keeps the grant until the end of the current turn of its event loop (a 0 ms timer) and, when the
 * next acquire comes before that and asks for a plain exclusive entry, enters again at once with
 * the next token. Otherwise (the timer fires, the burst is used up, another kind of entry is asked)
 * it sends the RELEASE. The coordinator sees one holder from the GRANT to the RELEASE, as before:
 * every message about the grant (RELEASE, RENEW, STOLEN-ACK, a SYNC's claim) carries the grant's
 * first token; only the client's events carry each entry's own.
 *
 * What it keeps: mutual exclusion (nobody else is granted before the RELEASE); tokens strictly
 * increase from entry to entry (the next grant takes a token above the reserved ones); the lease
 * covers every entry of the grant (a re-entry after the lease ran out asks again); nobody starves:
 * a request waiting behind the holder waits at most `burst - 1` entries more than it would have.
 */
export function burstOf(want: Want, burst: number): number {
  return burst > 1 && isExclusive(want) && want.steal !== true ? burst : 1
}

/** Whether an acquire asking for `want` may enter on a kept grant (a plain exclusive entry). */
export const reusesGrant = (want: Want): boolean => isExclusive(want) && want.steal !== true

/** The timer that gives a kept grant back at the end of the turn, per resource. */
export const GIVE_BACK = 'give-back:'
