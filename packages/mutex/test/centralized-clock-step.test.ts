import { emitsOf, faultsOf, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { type CentralizedEvent, centralized } from '../src/centralized/index.js'
import { checkMutualExclusion } from '../src/check.js'

/**
 * Issue 19, finding 2: leases are durations, so they run on `ctx.monotonic()`. Before, a holder
 * counted its renewed lease on the wall clock: a step back between a renewal and its answer
 * stretched the lease by the step, past the coordinator's count.
 */
function run(stepMs: number) {
  const net = new SimNetwork({ seed: 1, latency: 10 })
  net.launch(
    [1, 2, 3],
    centralized({ coordinator: 1, leaseMs: 300, renewEveryMs: 100, maxDelayMs: 150 }),
  )
  net.request(2, { type: 'acquire' }) // granted at 10, entered at 20; renews at 120
  net.at(125, () => net.stepClock(2, stepMs)) // the renewal is on its way back
  net.at(150, () => net.partition([2], [1, 3])) // no renewal gets through any more
  net.request(3, { type: 'acquire' }, 160)
  net.run({ until: 3000 })
  const events = emitsOf<CentralizedEvent>(net.trace)
  const at = (node: number, type: string) =>
    events.find((e) => e.node === node && e.event.type === type)?.t
  return {
    verdict: checkMutualExclusion(events, faultsOf(net.trace)),
    lost2: at(2, 'lease-lost'),
    entered3: at(3, 'acquired'),
  }
}

describe('centralized: leases on the monotonic clock', () => {
  for (const stepMs of [-1000, -200, 1000])
    it(`a wall-clock step of ${stepMs} ms on the holder leaves its lease as long as it was`, () => {
      const { verdict, lost2, entered3 } = run(stepMs)
      expect(verdict.violations).toEqual([])
      // The renewal sent at 120 gives 300 ms from then, whatever the wall clock did.
      expect(lost2).toBe(420)
      // The coordinator's count: the renewal it handled at 130, + leaseMs + maxDelayMs; granted
      // at 580, node 3's request had waited longer than a lease: one more round trip (grant-late).
      expect(entered3).toBe(610)
    })
})
