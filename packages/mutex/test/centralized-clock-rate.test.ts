import { emitsOf, faultsOf, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { type CentralizedEvent, centralized } from '../src/centralized/index.js'
import { checkMutualExclusion } from '../src/check.js'

/**
 * The bound leases rely on is a bound on clock *rate*: the holder counts `leaseMs` on its
 * monotonic clock from when its request (or renewal) left, the coordinator counts
 * `leaseMs + maxDelayMs` from when it answered. With the coordinator's clock running at rate rc
 * and the holder's at rh (true ms per local ms inverted), the holder's count ends first as long as
 * rc / rh <= (leaseMs + maxDelayMs) / leaseMs: 1.5 with the default maxDelayMs = leaseMs / 2,
 * i.e. drifts within +-20 % (a quartz is within 200 ppm). These runs drift the clocks in the
 * simulator (timers fire on the node's own clock) and cut the holder off, so the coordinator's
 * count ends while the holder still thinks it holds.
 */
const LEASE_MS = 300
const MAX_DELAY_MS = 150

function run(coordinatorDrift: number, holderDrift: number, seed: number) {
  const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 10 } })
  net.addNode(1, { drift: coordinatorDrift })
  net.addNode(2, { drift: holderDrift })
  net.addNode(3)
  net.launch(
    [1, 2, 3],
    centralized({ coordinator: 1, leaseMs: LEASE_MS, renewEveryMs: 100, maxDelayMs: MAX_DELAY_MS }),
  )
  net.request(2, { type: 'acquire' })
  // Cut off at some point while it holds: its renewals stop getting through.
  net.at(40 + seed * 7, () => net.partition([2], [1, 3]))
  net.request(3, { type: 'acquire' }, 60)
  net.run({ until: 5000 })
  const events = emitsOf<CentralizedEvent>(net.trace)
  // Judged by what the holder itself believes: a holding lasts until its own `lease-lost` or
  // `released`, not until `leaseMs` of true time (which a drifting clock does not measure).
  const believed = events.map((e) => {
    if (e.event.type !== 'acquired') return e
    const { leaseMs: _, ...rest } = e.event
    return { ...e, event: rest }
  })
  return {
    verdict: checkMutualExclusion(believed, faultsOf(net.trace)),
    entered3: events.some((e) => e.node === 3 && e.event.type === 'acquired'),
  }
}

describe('centralized leases under clock drift (a bound on rate, not on value)', () => {
  it('clocks within the bound (coordinator +20 %, holder -20 %): no overlap, and the next client enters', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { verdict, entered3 } = run(0.2, -0.2, seed)
      expect(verdict.violations, `seed ${seed}`).toEqual([])
      expect(entered3, `seed ${seed}`).toBe(true)
    }
  })

  it('clocks past the bound (coordinator +40 %, holder -40 %): the overlap is real and the checker sees it', () => {
    const broken = [1, 2, 3, 4, 5].filter(
      (seed) => run(0.4, -0.4, seed).verdict.violations.length > 0,
    )
    expect(broken.length).toBeGreaterThan(0)
  })
})
