/**
 * Finding 7 of issue 19 between real processes: five processes in five network namespaces on one
 * bridge, the majority mode over UDP; 20 times, one or two hosts are cut off by nftables (two
 * followers for 3 s, the leader until the others elect, a follower, the leader with a follower),
 * then healed. After every heal, every process follows the leader again within 2 detection
 * timeouts, and the failover right after two followers rejoined is not split. Needs root, `ip`
 * and `nft`: skipped with a notice where the machine lacks them, failed under SD_REQUIRE_ALL=1.
 */
import { createRandom } from '@sd/transport'
import { pollUntil } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { machineNow } from '../../../test-support/machine-clock.js'
import { timelineOf, viewOf } from './support/election-spawn.js'
import { netnsSkip, useMajorityHosts } from './support/netns-group.js'

const INTERVAL_MS = 100
/**
 * The detection timeout: large enough for a busy machine, the rejoin bound is twice it. 1 s was
 * not: rejoins take 50 to 250 ms, but with one core kept busy one of 20 took 2,155 ms. Not a
 * regression: at load 3 to 11, four runs each of this test at 1 s on da99552 (before the phi and
 * view changes) and on today's code both had rejoins past 1 s (max 1,518 and 1,610 ms), and the
 * same cuts in the simulator give identical rejoin times for both (200 heals, median 54 ms).
 */
const TIMEOUT_MS = 1500
const REJOIN_BOUND_MS = 2 * TIMEOUT_MS
const FAILOVER_BOUND_MS = 6 * TIMEOUT_MS
const CUTS = 20
const CUT_MS = 1500
const PORT = 47_100
const N = 5

const unavailable = netnsSkip('the heal test')
const launch = useMajorityHosts()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(unavailable !== undefined)(
  'majority mode: cuts and heals between real processes',
  () => {
    it('after each of 20 heals every process follows the leader within 2 detection timeouts', async () => {
      const { net, ids, group, agreed } = await launch({
        prefix: 'sdh',
        subnet: 213,
        hosts: N,
        port: PORT,
        intervalMs: INTERVAL_MS,
        timeoutMs: TIMEOUT_MS,
      })
      await pollUntil(() => agreed() !== undefined, 'agreement before the first cut', 60_000)
      const rnd = createRandom('partition-heal')
      const rejoins: number[] = []
      const failovers: number[] = []
      const cutsMade: string[] = []
      /** Every process follows one leader again after a heal: how long after it, ms. */
      const healAndRejoin = async (label: string) => {
        const healedAt = machineNow()
        net.heal()
        await pollUntil(() => agreed() !== undefined, `agreement after heal ${label}`, 60_000)
        // When each process last changed its view: the rejoin is the latest of these.
        const last = Math.max(...group.map((w) => timelineOf(w).at(-1)?.t ?? 0))
        rejoins.push(Math.max(0, last - healedAt))
        cutsMade.push(label)
        await sleep(2 * INTERVAL_MS)
      }
      for (let i = 0; i < CUTS / 4; i++) {
        const pick = (without: number[]) => {
          const left = ids.map((_, k) => k).filter((k) => !without.includes(k))
          return left[rnd.int(0, left.length - 1)]!
        }
        // Two followers, each cut off alone for 3 s (the partition): before pre-vote, each
        // spent terms on its own, and the next failover split the votes.
        let leader = ids.indexOf(agreed()!.leader)
        const f1 = pick([leader])
        const f2 = pick([leader, f1])
        net.cut(f1)
        net.cut(f2)
        await sleep(2 * CUT_MS)
        await healAndRejoin(`${ids[f1]}+${ids[f2]}`)
        // The next failover: the leader cut off until the others agree on a new one.
        const old = agreed()!
        leader = ids.indexOf(old.leader)
        const cutAt = machineNow()
        net.cut(leader)
        const others = group.filter((_, k) => k !== leader)
        const newLeader = () => {
          const views = others.map(viewOf)
          return views.every((v) => v && v.term > old.term && v.leader === views[0]!.leader)
        }
        await pollUntil(newLeader, `a new leader after cutting ${old.leader}`, 60_000)
        failovers.push(Math.max(...others.map((w) => timelineOf(w).at(-1)?.t ?? 0)) - cutAt)
        await sleep(CUT_MS)
        await healAndRejoin(old.leader)
        // A follower alone, then the leader with a follower.
        leader = ids.indexOf(agreed()!.leader)
        const f = pick([leader])
        net.cut(f)
        await sleep(CUT_MS)
        await healAndRejoin(ids[f]!)
        leader = ids.indexOf(agreed()!.leader)
        const g = pick([leader])
        net.cut(leader)
        net.cut(g)
        await sleep(CUT_MS)
        await healAndRejoin(`${ids[leader]}+${ids[g]}`)
      }
      console.log(
        `majority mode, ${N} processes, timeout ${TIMEOUT_MS} ms: rejoin after each heal (ms): ` +
          rejoins.map((r, i) => `${cutsMade[i]} ${r.toFixed(0)}`).join(', ') +
          `; failover after the heal of two cut followers (ms): ${failovers.map((f) => f.toFixed(0)).join(', ')}`,
      )
      expect(rejoins).toHaveLength(CUTS)
      for (const [i, r] of rejoins.entries()) {
        expect(r, `heal ${i + 1} (cut ${cutsMade[i]})`).toBeLessThanOrEqual(REJOIN_BOUND_MS)
      }
      // Generous (the simulator measures about 1.2 timeouts); the issue saw 5.6 s without a leader.
      for (const f of failovers) expect(f).toBeLessThanOrEqual(FAILOVER_BOUND_MS)
    })
  },
)
