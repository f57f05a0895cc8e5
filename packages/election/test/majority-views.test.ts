/**
 * The majority election counting over the agreed view, over many seeds of joins, a graceful leave,
 * a removal, crashes, pauses and partitions (the membership property test's churn), judged across
 * all nodes: one leader per term and never two at once (checkElection), no leader on a minority
 * side of the view in force, no leader out of the view (a joiner before its view is committed, a
 * departed node after), views agreed (checkViews); once the churn stops, one leader among the final
 * view, followed by every live node.
 */
import { emitsOf, faultsOf, type NodeId } from '@sd/transport'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { agreedLeader, checkElection } from '../src/check.js'
import type { MajorityEvent } from '../src/majority/events.js'
import { checkViews } from '../src/membership/check.js'
import type { MembershipEvent } from '../src/membership/events.js'
import { resolveOptions } from '../src/membership/options.js'
import { type ElectionWiring, memberNode, TIMEOUT } from './support/membership.js'
import { FOUNDERS, IDS, JOINERS, runChurn, UNTIL } from './support/membership-churn.js'
import {
  committedViews,
  ledAfterRemoval,
  ledInViewMinority,
  ledOutOfView,
} from './support/view-quorum.js'

describe('majority election over the agreed view', () => {
  it('over many seeds of churn: safe across view changes, and a leader of the final view after', () => {
    const settings = resolveOptions({ founders: FOUNDERS, retryMs: 100 })
    let joinerLeads = 0
    let viewChanges = 0
    forSeeds(seedList(40), (seed) => {
      const { net, events, election, faults, plan } = runChurn(seed, settings)
      const verdict = checkElection(election, faults)
      expect(verdict.violations).toEqual([])
      expect(checkViews(events, { faults }).violations).toEqual([])
      const views = committedViews(FOUNDERS, events)
      viewChanges += views.length - 1
      expect(ledInViewMinority(election, faults, views, IDS, UNTIL, TIMEOUT)).toEqual([])
      expect(ledOutOfView(election, faults, views, UNTIL)).toEqual([])
      expect(ledAfterRemoval(election, events, faults, UNTIL)).toEqual([])
      // Liveness: after the churn, every live node follows one leader, a member of the final view.
      const live = IDS.filter((id) => !plan.stopped.has(id) && !net.isCrashed(id))
      const agreed = agreedLeader(verdict, live)
      expect(agreed?.leader, `live ${live}`).toBeDefined()
      expect(views.at(-1)!.members).toContain(agreed!.leader)
      joinerLeads += election.filter(
        (e) => e.event.type === 'leader' && e.event.leader === e.node && JOINERS.includes(e.node),
      ).length
    })
    // The churn changed the views, and the joiners (the better ids are founders) do lead at times
    // once they are in: the election counts them.
    expect(viewChanges).toBeGreaterThan(seedList(40).length * 3)
    expect(joinerLeads).toBeGreaterThan(0)
  })

  it('the election over the fixed peer list instead fails the checks: joiners lead before they are in', () => {
    const settings = resolveOptions({ founders: FOUNDERS, retryMs: 100 })
    let firstFailing: number | undefined
    const kinds = new Set<string>()
    for (const seed of seedList(20)) {
      const { election, events, faults } = runChurn(seed, settings, 'peers')
      const views = committedViews(FOUNDERS, events)
      if (ledOutOfView(election, faults, views, UNTIL).length > 0) kinds.add('out-of-view')
      if (ledInViewMinority(election, faults, views, IDS, UNTIL, TIMEOUT).length > 0) {
        kinds.add('view-minority')
      }
      if (kinds.size > 0) firstFailing ??= seed
    }
    // The seed that shows it (replay with SD_SEEDS=<seed>).
    expect(firstFailing, 'no seed failed').toBeDefined()
    expect([...kinds], `first failing seed ${firstFailing}`).toContain('out-of-view')
  })

  /**
   * 5 commits view 2 (2 joins) with the acceptance of one of 3 and 4, and is cut off with the
   * joiner before 3 and 4 install it: {3, 4} is a majority of view 1 but not of view 2.
   */
  const straggler = (seed: number, wiring: ElectionWiring) => {
    const ids: NodeId[] = [2, 3, 4, 5]
    const { net } = runInSim(ids, memberNode(resolveOptions({ founders: [3, 4, 5] }), wiring), {
      seed,
      net: { latency: { kind: 'uniform', min: 1, max: 10 } },
      until: 4_000,
      plan: (net) => {
        net.crash(2)
        net.at(1_000, () => net.restart(2))
        let cut = false
        net.onEmit((_node, event) => {
          const e = event as { proto?: string; event?: MembershipEvent }
          if (!cut && e.proto === 'membership' && e.event?.type === 'committed') {
            cut = true
            net.partition([3, 4], [2, 5])
            net.at(net.now + 2_000, () => net.heal())
          }
        })
      },
    })
    const events = emitsOf<MembershipEvent>(net.trace, 'membership')
    const election = emitsOf<MajorityEvent>(net.trace, 'election')
    const views = committedViews([3, 4, 5], events)
    expect(views.map((v) => v.view)).toContain(2)
    return ledInViewMinority(election, faultsOf(net.trace), views, ids, 4_000, TIMEOUT)
  }

  it('the stragglers of a view change elect nobody on their side: what they accepted counts', () => {
    forSeeds(seedList(10), (seed) => expect(straggler(seed, 'views')).toEqual([]))
  })

  it('counting the installed view alone, the stragglers elect a leader on a minority of the new view', () => {
    const failing = seedList(10).filter((seed) => straggler(seed, 'installed').length > 0)
    expect(failing.length).toBeGreaterThan(0)
  })
})
