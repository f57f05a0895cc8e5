/**
 * The centralized coordinator in the playground, with a failover: when `--crash` takes the
 * coordinator down, every live node is later told "your coordinator is now X, term 1", as an
 * election composed on the same nodes would tell them.
 */
import { type CentralizedRequest, centralized } from '@sd/mutex'
import { createRandom, type NodeId } from '@sd/transport'
import type { Scenario } from '../../scenario.js'
import { type Ask, runMutexPlan } from './run.js'

const CRASH_AT = 20
const MOVE_AT = 40
const LEASE_MS = 30

export const mutexCentralized: Scenario = {
  name: 'mutex-centralized',
  title:
    'centralized coordinator: a FIFO queue, 3 messages per use, leases, a coordinator failover',
  description: `Node 1 coordinates: clients send REQUEST, it answers GRANT in FIFO order when the resource is free, clients send RELEASE (3 messages per use). Grants carry a ${LEASE_MS} ms lease that holders renew, and a fencing token that never goes backwards. Every node asks twice at random times within 60 ms. Node 1 crashes by default (--crash none: no crash; --crash names other nodes); crashed nodes go down at t=${CRASH_AT} ms; if the coordinator is among them, the live nodes are told at t=${MOVE_AT} ms that the lowest live id coordinates in term 1 (what an election would do): the new coordinator first asks every member what it holds, then grants, so mutual exclusion and token order survive the change.`,
  crashes: `crashed nodes go down at t=${CRASH_AT} ms; a crashed coordinator is replaced at t=${MOVE_AT} ms by the lowest live id (term 1). Without --crash the coordinator (node 1) crashes, to show the failover; --crash none runs without a crash`,
  defaultCrash: [1],
  pause: {
    accepts: `a paused holder cannot renew its ${LEASE_MS} ms lease: the coordinator expires it and grants the next; a paused coordinator grants nothing until its resume. The run lasts until 100 ms after the last resume, then on while a request waits`,
  },
  clockStep: {
    accepts:
      'leases run on the monotonic clock, so a step of a wall clock (forward or back, on the coordinator or a holder) must change no grant, expiry or token',
  },
  defaultN: 5,
  minN: 2,
  maxN: 12,
  run({ n, seed, crash, faults }) {
    const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
    const random = createRandom(`centralized/${seed}`).next
    const asks: Ask[] = ids.flatMap((node) =>
      [0, 1].map(() => ({
        node,
        at: Math.floor(random() * 60),
        hold: 1 + Math.floor(random() * 4),
      })),
    )
    const live = ids.filter((id) => !crash.includes(id))
    const run = runMutexPlan(
      centralized({ coordinator: 1, leaseMs: LEASE_MS }),
      {
        ids,
        asks: asks.filter((a) => !crash.includes(a.node) || a.at < CRASH_AT),
        until: 400,
        patienceMs: 200,
        planned: faults,
        faults: (net) => {
          for (const id of crash) net.at(CRASH_AT, () => net.crash(id))
          if (crash.includes(1) && live.length > 0) {
            const next = live[0]!
            net.at(MOVE_AT, () => {
              for (const id of live) {
                net.request<CentralizedRequest>(id, { type: 'coordinator', id: next, term: 1 })
              }
            })
          }
        },
      },
      seed,
    )
    if (crash.includes(1) && live.length > 0) run.result.newCoordinator = live[0]
    return run
  },
}
