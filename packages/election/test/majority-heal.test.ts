/**
 * Finding 7 of issue 19: after a partition heals, every node follows the leader again soon, and
 * the next failover is not split along the old partition line. Before pre-vote, the nodes of a
 * minority side inflated their terms while cut off; after the heal they refused every candidate
 * of a lower term, and votes given in vain held each side's voters for a timeout: a 2-2 split for
 * many terms (here up to 14 terms, 6.9 s without a leader, for 3 s cuts of two followers of five).
 */
import { createRandom, emitsOf, faultsOf, type NodeId, SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkElection } from '../src/check.js'
import { eventFields } from '../src/event-fields.js'
import { majorityElection } from '../src/majority/index.js'
import { currentLeader } from './support/views.js'

const INTERVAL = 100
const TIMEOUT = 500
/** Every node follows one leader within this of a heal (the bound). */
const REJOIN_BOUND = 2 * TIMEOUT
/** After the leader's crash, every live node follows one new leader within this. */
const FAILOVER_BOUND = 3 * TIMEOUT

/** When the views of `ids` last changed in (from, to), if they all agree at `to`; else undefined. */
function settledAt(
  net: SimNetwork,
  ids: readonly NodeId[],
  from: number,
  to: number,
): number | undefined {
  const events = emitsOf(net.trace).filter((e) => e.t <= to)
  if (currentLeader(events, ids) === undefined) return undefined
  let last = from
  for (const e of events) {
    const type = eventFields(e.event)?.type
    if (e.t > from && ids.includes(e.node) && (type === 'leader' || type === 'leader-lost'))
      last = e.t
  }
  return last - from
}

describe('majorityElection: cuts and heals, then a failover', () => {
  it('every node follows the leader within 2 timeouts of each heal; the next failover is quick', () => {
    let worstRejoin = 0
    let worstFailover = 0
    let cuts = 0
    forSeeds(seedList(120), (seed) => {
      const n = [3, 5, 7][seed % 3]!
      const ids: NodeId[] = Array.from({ length: n }, (_, i) => i + 1)
      const rnd = createRandom(`majority-heal/${seed}`)
      const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 10 } })
      net.launch(ids, majorityElection())
      net.run({ until: 2000 })
      for (let round = 0; round < 4; round++) {
        // A minority side: the leader with some followers, or followers only.
        const leader = currentLeader(emitsOf(net.trace), ids)
        const shuffled = [...ids]
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = rnd.int(0, i)
          ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
        }
        const size = rnd.int(1, Math.floor((n - 1) / 2))
        let minority = shuffled.slice(0, size)
        if (leader !== undefined && rnd.next() < 0.5 && !minority.includes(leader))
          minority = [leader, ...minority.slice(1)]
        net.partition(
          minority,
          ids.filter((id) => !minority.includes(id)),
        )
        net.runFor(rnd.int(1000, 4000)) // the cut lasted 3 s
        const healAt = net.now
        net.heal()
        cuts++
        net.runFor(4 * TIMEOUT)
        const rejoin = settledAt(net, ids, healAt, net.now)
        expect(rejoin, `agreement after heal ${round} (cut ${minority})`).toBeDefined()
        expect(rejoin!, `heal ${round}: cut ${minority}`).toBeLessThanOrEqual(REJOIN_BOUND)
        worstRejoin = Math.max(worstRejoin, rejoin!)
      }
      // The failover after the last heal: crash the leader.
      const leader = currentLeader(emitsOf(net.trace), ids)!
      const crashAt = net.now + rnd.int(0, INTERVAL)
      net.at(crashAt, () => net.crash(leader))
      net.run({ until: crashAt + 6 * TIMEOUT })
      const live = ids.filter((id) => id !== leader)
      const failover = settledAt(net, live, crashAt, net.now)
      expect(failover, 'agreement after the crash of the leader').toBeDefined()
      expect(failover!, 'failover').toBeLessThanOrEqual(FAILOVER_BOUND)
      worstFailover = Math.max(worstFailover, failover!)
      const verdict = checkElection(emitsOf(net.trace), faultsOf(net.trace), {
        members: ids,
        minorityGraceMs: TIMEOUT,
      })
      expect(verdict.violations).toEqual([])
    })
    console.log(
      `cuts and heals: ${cuts} heals; every node followed the leader within ` +
        `${worstRejoin.toFixed(0)} ms of a heal at worst; failover at worst ${worstFailover.toFixed(0)} ms`,
    )
  })
})
