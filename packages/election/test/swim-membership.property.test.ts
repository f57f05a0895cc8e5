/**
 * SWIM's eventually consistent membership over many seeds: joins through seeds, announced leaves
 * and crashes, with 0 to 5% loss. After the churn stops every live member holds every live member
 * within a bound; a member that left is in nobody's view and was not suspected; a dead member
 * comes back only in a higher incarnation (tombstones: without them, stale gossip resurrects it);
 * a join whose first seed crashed completes through the next; messages per member per period
 * stay bounded.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import type { SwimOptions } from '../src/detector/swim/options.js'
import {
  type ChurnScenario,
  churnScenario,
  convergenceBound,
  convergenceViolations,
  leaveViolations,
  resurrectionViolations,
  runChurn,
  staleScenario,
} from './support/swim-churn.js'

const OPTIONS: SwimOptions = { periodMs: 100, probeTimeoutMs: 20 }

const deadline = (s: ChurnScenario) =>
  s.churnEnd + convergenceBound(s.initial.length + s.joins.length, s.options)

describe('SWIM membership under churn (joins, leaves, crashes)', () => {
  for (const loss of [0, 0.01, 0.05]) {
    it(`${loss * 100}% loss: the live members' views converge within the bound, leaves are clean`, () => {
      let worst = 0
      let perPeriod = 0
      forSeeds(seedList(40), (seed) => {
        const s = churnScenario(seed, OPTIONS, loss)
        const run = runChurn(s)
        expect(convergenceViolations(run, deadline(s))).toEqual([])
        expect(resurrectionViolations(run)).toEqual([])
        // Lossless, nobody suspects a leaver once it asked to leave; with loss a probe of it may
        // fail during its announcement, but once it stopped nobody suspects it, nor declares it dead.
        expect(leaveViolations(run, loss === 0 ? 'request' : 'stop')).toEqual([])
        const views = run.events.filter((e) => e.event.type === 'view' && run.live.includes(e.node))
        const periods = (Math.max(...views.map((e) => e.t)) - s.churnEnd) / 100
        worst = Math.max(worst, periods)
        const sent = run.net.stats.sent / run.nodePeriods
        perPeriod = Math.max(perPeriod, sent)
        // A ping and an ack each, the indirect probes of the crash, joins and leave announcements.
        expect(sent).toBeLessThan(4)
      })
      console.log(
        `SWIM membership, ${loss * 100}% loss: views converged at most ${worst.toFixed(0)} periods after the churn; at most ${perPeriod.toFixed(2)} messages per member per period`,
      )
    })
  }
})

describe('SWIM membership: joins', () => {
  it('a join whose first seed crashes as it asks completes through the second seed', () => {
    forSeeds(seedList(20), (seed) => {
      const s: ChurnScenario = {
        ...churnScenario(seed, OPTIONS, 0),
        joins: [{ node: 11, at: 1000, seeds: [1, 2] }],
        leaves: [],
        crashes: [{ node: 1, at: 1000 }],
        churnEnd: 1000,
      }
      const run = runChurn(s)
      expect(run.live).toContain(11)
      expect(convergenceViolations(run, deadline(s))).toEqual([])
      const asked = run.events.filter((e) => e.node === 11 && e.event.type === 'view')
      expect(asked[0]!.event).toMatchObject({ type: 'view', view: 1 })
    })
  })

  it('a seed refuses joins beyond maxMembers', () => {
    const s: ChurnScenario = {
      ...churnScenario(1, { ...OPTIONS, maxMembers: 4 }, 0),
      initial: [1, 2, 3],
      joins: [
        { node: 11, at: 500, seeds: [1] },
        { node: 12, at: 1500, seeds: [1] },
      ],
      leaves: [],
      crashes: [],
    }
    const run = runChurn(s)
    const refused = run.events.filter(
      (e) => e.node === 1 && e.event.type === 'ignored' && /full/.test(e.event.reason),
    )
    expect(refused.map((e) => e.event.type === 'ignored' && e.event.from)).toContain(12)
    const views = run.events.filter((e) => e.event.type === 'view' && e.node !== 12)
    for (const v of views) if (v.event.type === 'view') expect(v.event.members).not.toContain(12)
  })
})

describe('SWIM membership: tombstones keep the dead dead', () => {
  const stale = (options: SwimOptions) =>
    seedList(20).flatMap((seed) => {
      const run = runChurn(staleScenario(seed, options))
      return resurrectionViolations(run).map((v) => `seed ${seed}: ${v}`)
    })

  it('news of a dead member that arrives seconds late does not bring it back', () => {
    expect(stale(OPTIONS)).toEqual([])
  })

  it('broken variant: forgotten at once (no tombstones), the late news resurrects it', () => {
    const violations = stale({ ...OPTIONS, tombstonePeriods: 0 })
    console.log(`without tombstones: ${violations.length} resurrections, first: ${violations[0]}`)
    expect(violations.length).toBeGreaterThan(0)
  })

  it('a member that comes back after its death returns in a higher incarnation', () => {
    forSeeds(seedList(20), (seed) => {
      const s: ChurnScenario = {
        ...churnScenario(seed, OPTIONS, 0),
        joins: [],
        leaves: [],
        crashes: [{ node: 1, at: 1000 }],
        restarts: [{ node: 1, at: 5000 }],
        churnEnd: 5000,
      }
      const run = runChurn(s)
      expect(resurrectionViolations(run)).toEqual([])
      expect(convergenceViolations(run, deadline(s))).toEqual([])
      const back = run.events.filter(
        (e) => e.t >= 5000 && e.event.type === 'member-joined' && e.event.node === 1,
      )
      expect(back.length).toBe(s.initial.length - 1)
      for (const e of back) expect(e.event).toMatchObject({ incarnation: 1 })
    })
  })
})
