/**
 * What the quorum mutex tests share: the five coordinators, the texts' violation (a plan whose
 * timing is exact at 1 ms per link) and random coordinator restarts.
 */
import { createRandom, type SimNetwork } from '@sd/transport'
import type { Ask } from './harness.js'

export const coordinators = ['c1', 'c2', 'c3', 'c4', 'c5']

/**
 * The texts' scenario with n = 5, m = 3: a holds {c1, c2, c3}; c3 restarts and forgets; b gets
 * {c3, c4, c5}. Latency is 1 ms on every link (the default), so the plan is exact:
 *   t = 0   a is cut off from c4 and c5 (and b from everyone); a asks
 *   t = 2   a enters with the grants of c1, c2, c3 (its requests to c4, c5 were dropped)
 *   t = 5   the partition heals
 *   t = 10  c3 crashes; t = 12 it restarts (with the restart, without it, or with durable grants)
 *   t = 20  b asks: c1 and c2 deny, c3 (if it forgot), c4 and c5 grant at t = 22
 *   t = 52  a leaves (it holds 50 ms)
 */
export const violationIds = [...coordinators, 'a', 'b']
export const violationAsks: Ask[] = [
  { node: 'a', at: 0, hold: 50 },
  { node: 'b', at: 20, hold: 10 },
]
export const violationPlan =
  (restart: 'restart' | 'no crash' | 'crash only' = 'restart') =>
  (net: SimNetwork): void => {
    net.partition(['a', 'c1', 'c2', 'c3'], ['c4', 'c5'])
    net.at(5, () => net.heal())
    if (restart === 'no crash') return
    net.at(10, () => net.crash('c3'))
    if (restart === 'restart') net.at(12, () => net.restart('c3'))
  }

/** Coordinators crash at random in the first 300 ms (12 draws) and come back 1..5 ms later. */
export const coordinatorRestarts = (seed: number) => (net: SimNetwork) => {
  const random = createRandom(`restarts/${seed}`).next
  for (let i = 0; i < 12; i++) {
    const node = coordinators[Math.floor(random() * coordinators.length)]!
    const at = Math.floor(random() * 300)
    net.at(at, () => {
      if (net.isCrashed(node)) return
      net.crash(node)
      net.at(at + 1 + Math.floor(random() * 5), () => net.restart(node))
    })
  }
}
