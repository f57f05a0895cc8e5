import { faultsOf } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkElection } from '../src/check.js'
import { majorityElection } from '../src/majority/index.js'
import { runElection } from './support/harness.js'
import { lastViewChange, leasesBroken, planChaos } from './support/majority-faults.js'

const TIMEOUT = 500 // the default heartbeat timeout
const HEAL_AT = 20 * TIMEOUT
/** After the last fault (the final heal, every node restarted), the views settle within this. */
const SETTLE_BOUND = 6 * TIMEOUT
const UNTIL = HEAL_AT + 30 * TIMEOUT

describe('majorityElection under random partitions, crashes, restarts and slow links', () => {
  it('safety, the lease, and agreement soon after the last fault, for every seed', () => {
    const factory = majorityElection()
    let leaseStepDowns = 0
    let worstSettle = Number.NEGATIVE_INFINITY
    forSeeds(seedList(200), (seed) => {
      const n = [3, 4, 5, 7][seed % 4]!
      const ids = Array.from({ length: n }, (_, i) => i + 1)
      const link = { latency: { kind: 'uniform' as const, min: 1, max: 10 } }
      const run = runElection(ids, factory, {
        seed,
        until: UNTIL,
        net: link,
        plan: (net) =>
          planChaos(net, ids, seed, {
            healAt: HEAL_AT,
            meanGapMs: TIMEOUT,
            link,
            slowMs: { min: 100, max: 1500 },
          }),
      })
      // Never two leaders in one term; terms never go back at a node, across its restarts too.
      expect(run.violations).toEqual([])
      // Nobody leads without a majority it could reach within the last timeout (see leasesBroken).
      expect(leasesBroken(run.net, ids, TIMEOUT, UNTIL)).toEqual([])
      // The global checker agrees: never two leaders at once, none on a minority side.
      const global = checkElection(run.events, faultsOf(run.net.trace), {
        members: ids,
        minorityGraceMs: TIMEOUT,
        end: UNTIL,
      })
      expect(global.violations).toEqual([])
      // Every node runs again after HEAL_AT; all follow one leader, and no view changes after
      // SETTLE_BOUND (no flapping once the network is sound).
      expect(run.live).toEqual(ids)
      expect(run.agreed).toBeDefined()
      const settled = lastViewChange(run.events) - HEAL_AT
      expect(settled).toBeLessThanOrEqual(SETTLE_BOUND)
      worstSettle = Math.max(worstSettle, settled)
      leaseStepDowns += ofType(run.events, 'stepped-down').filter(
        (e) => e.event.reason === 'lease',
      ).length
    })
    // The faults did cut leaders off (the lease was exercised), many times over the seeds.
    expect(leaseStepDowns).toBeGreaterThan(50)
    console.log(
      `majority chaos: ${leaseStepDowns} lease step-downs; settled at most ` +
        `${(worstSettle / TIMEOUT).toFixed(2)} timeouts after the last fault`,
    )
  })
})
