/** Check spec for the token ring (@sd/mutex), with one lost pass: safety by happens-before. */
import { tokenRing } from '@sd/mutex'
import { mutexScenario } from './mutex.js'
import type { CheckSpec } from './spec.js'

const HOLD_MS = 2
const ACK_TIMEOUT_MS = 5
/** Long past the bound: no regeneration starts within it (see `what`). */
const LOST_TOKEN_MS = 10_000
const UNTIL_MS = 6

export const tokenRingCheck: CheckSpec = {
  scenario: 'mutex-token-ring',
  what: (n) =>
    `${n} nodes on a ring in id order, node 1 holding the token; every node asks once at the start and releases 1 ms after it enters; a holder that does not want the section passes the token after ${HOLD_MS} ms, each pass acknowledged (resent after ${ACK_TIMEOUT_MS} ms without an ACK); the explorer may lose one message (a pass or its ACK); time is bounded at ${UNTIL_MS} ms, so the lost-token regeneration (after ${LOST_TOKEN_MS} ms) never starts. Of any two critical sections one ends before the other begins (happens-before, from vector clocks on the messages) and the later has the larger fencing token. Liveness is not claimed: the bound ends before the token has been round the ring with every section in it, and no regeneration runs within it (a lost pass is resent, never regenerated, here)`,
  defaultN: 3,
  minN: 2,
  maxN: 4,
  // Exhausted at n = 3 with the one loss (about 900 schedules); until 7 takes ten times as many.
  defaults: { depth: 120, until: UNTIL_MS, faults: { loss: 1 } },
  build(n) {
    return mutexScenario(
      tokenRing({
        holdMs: HOLD_MS,
        ackTimeoutMs: ACK_TIMEOUT_MS,
        lostTokenTimeoutMs: LOST_TOKEN_MS,
      }),
      n,
      { until: UNTIL_MS, liveness: false },
    )
  },
}
