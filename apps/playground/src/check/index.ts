import { berkeleyCheck } from './berkeley.js'
import { causalOrderCheck, totalOrderCheck } from './clocks.js'
import { centralizedDetectionCheck, cmhCheck, waitDieCheck, woundWaitCheck } from './deadlock.js'
import { cmhGraphCheck } from './deadlock-graph.js'
import { changRobertsCheck } from './election.js'
import { bullyCheck } from './election-faults.js'
import { majorityCheck } from './election-majority.js'
import { ringCheck, yoyoCheck } from './election-more.js'
import { ricartAgrawalaCheck } from './mutex.js'
import { mutexElectionCheck } from './mutex-election.js'
import { lamportMutexCheck, maekawaCheck } from './mutex-quorums.js'
import { failoverCheck, quorumCheck } from './mutex-restarts.js'
import { tokenRingCheck } from './mutex-token-ring.js'
import type { CheckSpec } from './spec.js'
import { cristianCheck } from './timesync.js'
import { ntpCheck, temporalOrderCheck } from './timesync-more.js'
import { floodCheck } from './transport.js'

/** The scenarios `sd check` can explore, one or more per package. */
export const checks: readonly CheckSpec[] = [
  causalOrderCheck,
  totalOrderCheck,
  floodCheck,
  ricartAgrawalaCheck,
  lamportMutexCheck,
  maekawaCheck,
  quorumCheck,
  tokenRingCheck,
  mutexElectionCheck,
  failoverCheck,
  changRobertsCheck,
  bullyCheck,
  ringCheck,
  yoyoCheck,
  majorityCheck,
  cristianCheck,
  berkeleyCheck,
  ntpCheck,
  temporalOrderCheck,
  cmhCheck,
  cmhGraphCheck,
  centralizedDetectionCheck,
  waitDieCheck,
  woundWaitCheck,
]

export type { CheckSpec }
