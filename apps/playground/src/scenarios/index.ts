import type { Scenario } from '../scenario.js'
import { causalOrder } from './causal-order.js'
import { deadlockCentralized } from './deadlock/centralized.js'
import { deadlockCmh } from './deadlock/cmh.js'
import { deadlockPrevention } from './deadlock/prevention.js'
import { electionBully } from './election/bully.js'
import { electionChangRoberts, electionRing } from './election/ring.js'
import { electionYoyo } from './election/yoyo.js'
import { flood } from './flood.js'
import { lamport } from './lamport.js'
import { lamportPqr } from './lamport-pqr.js'
import { make } from './make.js'
import { mutexCentralized } from './mutex/centralized.js'
import { mutexQuorum } from './mutex/quorum.js'
import { mutexMaekawa, mutexTokenRing } from './mutex/ring-and-quorums.js'
import { mutexLamport, mutexRicartAgrawala } from './mutex/timestamps.js'
import { timesyncBerkeley } from './timesync/berkeley.js'
import { timesyncCristian } from './timesync/cristian.js'
import { timesyncNtp } from './timesync/ntp.js'
import { timesyncTemporalOrder, timesyncTemporalOrderLate } from './timesync/temporal-order.js'
import { totalOrder } from './total-order.js'
import { vector } from './vector.js'

/** Every scenario `sd list` shows, in tour order. Add new ones here. */
export const scenarios: Scenario[] = [
  flood,
  // @sd/clocks scenarios (lamport, vector, causal-order, total-order, make) go below.
  lamport,
  lamportPqr,
  vector,
  causalOrder,
  totalOrder,
  make,
  // @sd/mutex scenarios.
  mutexCentralized,
  mutexRicartAgrawala,
  mutexLamport,
  mutexTokenRing,
  mutexMaekawa,
  mutexQuorum,
  // @sd/election scenarios.
  electionBully,
  electionRing,
  electionChangRoberts,
  electionYoyo,
  // @sd/timesync scenarios.
  timesyncCristian,
  timesyncBerkeley,
  timesyncNtp,
  timesyncTemporalOrder,
  timesyncTemporalOrderLate,
  // @sd/deadlock scenarios.
  deadlockCmh,
  deadlockCentralized,
  deadlockPrevention,
]
