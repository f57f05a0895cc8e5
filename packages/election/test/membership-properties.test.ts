/**
 * The agreed membership over many seeds of joins, graceful leaves, removals of dead members,
 * crashes, pauses and partitions, judged across all nodes from the `view` events: views totally
 * ordered, each acknowledged by a majority of the view before it, none committed on a minority
 * side; after the churn stops, every live member in every live member's view and the departed in
 * nobody's. A variant that commits on its own acknowledgement alone must fail.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { checkViews } from '../src/membership/check.js'
import { resolveOptions } from '../src/membership/options.js'
import { FOUNDERS, IDS, runChurn } from './support/membership-churn.js'

describe('agreed membership', () => {
  it('over many seeds of churn and faults: views agreed, majority-acknowledged, and converged', () => {
    const settings = resolveOptions({ founders: FOUNDERS, retryMs: 100 })
    let commits = 0
    let partitions = 0
    let removals = 0
    let underPartition = 0
    forSeeds(seedList(40), (seed) => {
      const { net, events, faults, plan } = runChurn(seed, settings)
      const verdict = checkViews(events, { faults })
      expect(verdict.violations).toEqual([])
      // After the churn: every live node (the joiners included) in every live node's view, the
      // leaver and the dead member in nobody's.
      const live = IDS.filter((id) => !plan.stopped.has(id) && !net.isCrashed(id))
      expect({ live, left: plan.leaver }).toEqual({
        live: live.filter((id) => id !== plan.leaver),
        left: plan.leaver,
      })
      expect(live.length).toBe(5)
      for (const id of live) {
        expect({ node: id, members: verdict.last.get(id)?.members }).toEqual({
          node: id,
          members: live,
        })
      }
      expect(plan.stopped).toContain(plan.leaver)
      expect(events.some((e) => e.node === plan.leaver && e.event.type === 'left')).toBe(true)
      const committed = events.filter((e) => e.event.type === 'committed')
      commits += committed.length
      partitions += faults.filter((f) => f.type === 'partition').length
      underPartition += committed.filter((c) => {
        const cut = faults
          .filter((f) => (f.type === 'partition' || f.type === 'heal') && f.t <= c.t)
          .at(-1)
        return cut?.type === 'partition'
      }).length
      removals += events.filter(
        (e) => e.event.type === 'view' && e.event.left.includes(plan.dead),
      ).length
    })
    // The churn happened: joins, a leave and a removal per seed, under partitions.
    expect(commits).toBeGreaterThan(seedList(40).length * 3)
    expect(partitions).toBeGreaterThan(seedList(40).length * 2)
    expect(removals).toBeGreaterThan(0)
    // Some views were committed while a partition held (on the majority side).
    expect(underPartition).toBeGreaterThan(0)
  })

  it('a variant that commits before a majority acknowledged fails the check', () => {
    const broken = { ...resolveOptions({ founders: FOUNDERS, retryMs: 100 }), quorum: () => 1 }
    const kinds = new Set<string>()
    let firstFailing: number | undefined
    for (const seed of seedList(10)) {
      const { events, faults } = runChurn(seed, broken)
      const verdict = checkViews(events, { faults })
      for (const v of verdict.violations) kinds.add(v.kind)
      if (!verdict.ok) firstFailing ??= seed
    }
    // The seed that shows it (replay with SD_SEEDS=<seed> to see the violations).
    expect(firstFailing, 'no seed failed').toBeDefined()
    expect([...kinds], `first failing seed ${firstFailing}`).toContain('unacknowledged')
    expect([...kinds]).toContain('minority-commit')
  })
})
