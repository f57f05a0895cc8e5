/**
 * A joiner slow to acknowledge is not reported silent at once (the fault a busy deployment test
 * met: the leader counted a member never heard from as silent since the start of its leadership,
 * so a joiner whose first acknowledgement was still on its way at the next heartbeat was reported
 * and removed 12 ms after it joined). The leader counts silence from when it first watched the
 * member (or from the heartbeat its last acknowledgement answered); a joiner that later crashes is
 * still reported, after silentAfterMs of silence.
 */
import type { NodeId } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkElection } from '../src/check.js'
import type { MajorityEvent } from '../src/majority/events.js'
import type { MembershipEvent } from '../src/membership/events.js'
import { resolveOptions as membershipOptions } from '../src/membership/options.js'
import { childEvents, INTERVAL, memberNode } from './support/membership.js'

const FOUNDERS: NodeId[] = [1, 2, 3]
const IDS: NodeId[] = [...FOUNDERS, 4]
/** Every message 4 sends takes this long: its acknowledgements reach the leader late. */
const SLOW_MS = 400
const SILENT_MS = 600
const JOIN_AT = 2_000
const CRASH_AT = 7_000

describe('the majority leader and a slow joiner', () => {
  it('a joiner whose acknowledgements take 400 ms is kept, and reported only once it crashes', () => {
    forSeeds(seedList(20), (seed) => {
      let admittedAt: number | undefined
      const { net } = runInSim(
        IDS,
        memberNode(membershipOptions({ founders: FOUNDERS }), 'views', {
          silentAfterMs: SILENT_MS,
        }),
        {
          seed,
          net: { latency: { kind: 'uniform', min: 1, max: 10 } },
          until: CRASH_AT + 3_000,
          plan: (net) => {
            for (const to of FOUNDERS) {
              net.setLink(4, to, { latency: { kind: 'fixed', ms: SLOW_MS } }, { oneWay: true })
            }
            // 4 starts cut off, so the founders' leader has led for a while when it joins.
            net.partition([4], FOUNDERS)
            net.at(JOIN_AT, () => net.heal())
            net.onEmit((_node, event) => {
              const e = event as { proto?: string; event?: MembershipEvent }
              if (admittedAt !== undefined || e.proto !== 'membership') return
              if (e.event?.type === 'view' && e.event.members.includes(4)) admittedAt = net.now
            })
            net.at(CRASH_AT, () => net.crash(4))
          },
        },
      )
      const election = childEvents<MajorityEvent>(net, 'election')
      expect(checkElection(election).violations).toEqual([])
      expect(admittedAt, 'the joiner was admitted').toBeDefined()
      expect(admittedAt!).toBeLessThan(CRASH_AT - 2 * SILENT_MS)
      const leaderAtJoin = election
        .filter((e) => e.t <= admittedAt! && e.event.type === 'leader' && e.event.leader === e.node)
        .at(-1)?.node
      expect(leaderAtJoin, 'a founder led when 4 joined').toBeDefined()
      const silent = election.filter((e) => e.event.type === 'member-silent')
      // Nobody is reported while 4 lives: its acknowledgements arrive, 400 ms late.
      expect(silent.filter((e) => e.t < CRASH_AT)).toEqual([])
      // Once 4 crashes, it is reported once. An acknowledgement counts from the heartbeat it
      // answers (as for the lease): the last 4 answered left the leader within a heartbeat and a
      // latency before the crash, and the report comes at the first heartbeat silentAfterMs later.
      const reported = silent.filter((e) => e.event.type === 'member-silent' && e.event.node === 4)
      expect(reported, `seed ${seed}`).toHaveLength(1)
      expect(reported[0]!.t).toBeGreaterThanOrEqual(CRASH_AT - INTERVAL - 10 + SILENT_MS)
      expect(reported[0]!.t).toBeLessThanOrEqual(CRASH_AT + SILENT_MS + INTERVAL)
      // And the membership removes it: the last view leaves 4 out.
      const views = childEvents<MembershipEvent>(net, 'membership').filter(
        (e) => e.event.type === 'view',
      )
      const last = views.at(-1)!.event
      expect(last.type === 'view' && last.members.includes(4)).toBe(false)
    })
  })
})
