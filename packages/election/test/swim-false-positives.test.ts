/**
 * The detectors' false positives, counted: SWIM under 1% and 5% loss, under pauses of 50-200 ms
 * (a simulated GC: the node runs nothing, then its backlog), and with one member slowed down
 * (everything sent to it takes 40-200 ms: a starved CPU, a saturated NIC). Lifeguard is compared
 * with plain SWIM, and with its local health multiplier alone switched off, on the same seeds.
 * A broken variant (no indirect probe) must fail the accuracy property the real one holds.
 */
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import type { SwimOptions } from '../src/detector/swim/options.js'
import { randomPauses, runSwim, type SwimScenario } from './support/swim-runs.js'

/** Tight timings, so that loss and pauses do cause suspicions to count. */
const TIGHT: SwimOptions = { periodMs: 100, probeTimeoutMs: 20 }
const VARIANTS = {
  lifeguard: TIGHT,
  'no local health': { ...TIGHT, lifeguard: { localHealth: false } },
  'plain SWIM': { ...TIGHT, lifeguard: false },
} satisfies Record<string, SwimOptions>
type Variant = keyof typeof VARIANTS

const N = 10
const UNTIL = 20_000
/** The comparisons run on fixed seeds (their thresholds are totals); SD_SEEDS scales the rest. */
const COMPARED = Array.from({ length: 20 }, (_, i) => i + 1)

/** Totals over the seeds, per variant, of a scenario built per seed. */
function count(
  seeds: number[],
  scenario: (seed: number, options: SwimOptions) => SwimScenario,
  predicate?: (node: number, from: number) => boolean,
) {
  const totals = {} as Record<Variant, { suspicions: number; deaths: number; bySlow: number }>
  for (const [name, options] of Object.entries(VARIANTS) as [Variant, SwimOptions][]) {
    const t = { suspicions: 0, deaths: 0, bySlow: 0 }
    forSeeds(seeds, (seed) => {
      const run = runSwim(scenario(seed, options))
      t.suspicions += run.falseSuspicions
      t.deaths += run.falseDeaths
      for (const e of run.events) {
        if (
          e.event.type === 'suspect' &&
          predicate?.(e.event.node as number, e.event.from as number)
        )
          t.bySlow++
      }
    })
    totals[name] = t
  }
  return totals
}

describe('SWIM false positives under loss', () => {
  it('1% loss: no false suspicion at all (an indirect probe through 3 members almost never fails)', () => {
    const seeds = seedList(20)
    const totals = count(seeds, (seed, options) => ({
      seed,
      n: N,
      options,
      loss: 0.01,
      untilMs: UNTIL,
    }))
    console.log('1% loss, 20 s x 10 members per seed:', JSON.stringify(totals))
    expect(totals.lifeguard.deaths).toBe(0)
    expect(totals.lifeguard.suspicions).toBeLessThanOrEqual(seeds.length / 4)
  })

  it('5% loss: suspicions happen and are refuted; Lifeguard declares no live member dead', () => {
    const totals = count(COMPARED, (seed, options) => ({
      seed,
      n: N,
      options,
      loss: 0.05,
      untilMs: UNTIL,
    }))
    console.log('5% loss, 20 s x 10 members per seed:', JSON.stringify(totals))
    expect(totals.lifeguard.suspicions).toBeGreaterThan(0)
    expect(totals.lifeguard.deaths).toBe(0)
    expect(totals.lifeguard.suspicions).toBeLessThan(totals['plain SWIM'].suspicions)
  })
})

describe('SWIM false positives under pauses of 50-200 ms', () => {
  it('Lifeguard declares far fewer paused members dead than plain SWIM, on the same seeds', () => {
    const totals = count(COMPARED, (seed, options) => ({
      seed,
      n: N,
      options,
      untilMs: UNTIL,
      pauses: randomPauses(seed, N, UNTIL),
    }))
    console.log('pauses, 20 s x 10 members per seed:', JSON.stringify(totals))
    // A pause of two periods is suspected whatever the detector: the refutation is what differs.
    expect(totals.lifeguard.suspicions).toBeGreaterThan(100)
    expect(totals.lifeguard.deaths * 3).toBeLessThan(totals['plain SWIM'].deaths)
  })
})

describe('SWIM false positives with one slow member (what Lifeguard is for)', () => {
  const slow = (seed: number, options: SwimOptions): SwimScenario => ({
    seed,
    n: N,
    options,
    untilMs: UNTIL,
    // Everything sent to member 1 takes 40-200 ms: its acks come after its probe timeouts.
    setup: (net, ids) => {
      for (const id of ids) {
        if (id !== 1) {
          net.setLink(id, 1, { latency: { kind: 'uniform', min: 40, max: 200 } }, { oneWay: true })
        }
      }
    },
  })

  it('local health cuts the slow member suspicions of healthy ones; with Lifeguard no healthy one dies', () => {
    const seeds = COMPARED.slice(0, 10)
    const totals = count(seeds, slow, (node, from) => from === 1 && node !== 1)
    console.log('one slow member, 20 s x 10 members per seed:', JSON.stringify(totals))
    // The slow member suspects healthy members all the time without local health...
    expect(totals['no local health'].bySlow).toBeGreaterThan(1000)
    // ...and ten times less with it: it slows its probing and waits longer for acks.
    expect(totals.lifeguard.bySlow * 10).toBeLessThan(totals['no local health'].bySlow)
    // Healthy members declared dead (the slow one left aside: it is the unhealthy one).
    const healthyDeaths = (options: SwimOptions) => {
      let deaths = 0
      forSeeds(seeds, (seed) => {
        const run = runSwim(slow(seed, options))
        deaths += run.events.filter((e) => e.event.type === 'dead' && e.event.node !== 1).length
      })
      return deaths
    }
    const lifeguard = healthyDeaths(VARIANTS.lifeguard)
    const plain = healthyDeaths(VARIANTS['plain SWIM'])
    console.log(`healthy members declared dead: lifeguard ${lifeguard}, plain SWIM ${plain}`)
    // The slow member's lone suspicions last the longest timeout under Lifeguard (nobody
    // confirms them): the healthy member refutes in time. Plain SWIM waits the least.
    expect(lifeguard).toBe(0)
    expect(plain).toBeGreaterThan(0)
  })
})

describe('a broken SWIM fails the accuracy property', () => {
  /** Accuracy under 5% loss: no live member declared dead, for every seed. */
  const accurate = (options: SwimOptions) =>
    forSeeds(COMPARED, (seed) => {
      const run = runSwim({ seed, n: N, options, loss: 0.05, untilMs: UNTIL })
      expect(run.falseDeaths, 'live members declared dead').toBe(0)
    })

  it('without the indirect probe (k = 0), a seed declares a live member dead', () => {
    accurate(TIGHT)
    expect(() => accurate({ ...TIGHT, indirectChecks: 0 })).toThrow(/failed with seed \d+/)
  })
})
