/**
 * SWIM in the simulator over many seeds: completeness (a crashed member is declared dead by every
 * live member within a bound), accuracy when nothing is lost (no live member suspected), the
 * refutation of a suspicion, and messages per member per period independent of the group's size.
 */
import { createRandom, type NodeId } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { resolveOptions, type SwimOptions } from '../src/detector/swim/options.js'
import { suspicionBounds } from '../src/detector/swim/suspicion.js'
import { runSwim } from './support/swim-runs.js'

const OPTIONS: SwimOptions = { periodMs: 100, probeTimeoutMs: 20 }

/**
 * Every live member declares each crashed one dead within: two rounds of probes (the shuffled
 * round-robin reaches a member within 2n periods), the longest suspicion, and 12 periods to
 * spread the news and absorb the local health multiplier.
 */
function detectionBound(n: number, options: SwimOptions): number {
  const s = resolveOptions(options)
  const bounds = suspicionBounds(n, s.periodMs, s.suspicionMult, s.suspicionMaxMult, true)
  return (2 * n + 12) * s.periodMs + bounds.maxMs
}

/** For each crashed member, how long until the last live member declared it dead (or Infinity). */
function detectionTimes(run: ReturnType<typeof runSwim>): number[] {
  const out: number[] = []
  for (const [victim, at] of run.crashed) {
    for (const observer of run.ids) {
      if (run.crashed.has(observer)) continue
      const dead = run.events.find(
        (e) => e.node === observer && e.event.type === 'dead' && e.event.node === victim,
      )
      out.push(dead === undefined ? Number.POSITIVE_INFINITY : dead.t - at)
    }
  }
  return out
}

function crashScenario(seed: number, options: SwimOptions, loss = 0) {
  const rnd = createRandom(`swim-crash/${seed}`)
  const n = rnd.int(4, 14)
  const victims = rnd.int(1, Math.max(1, Math.floor((n - 1) / 3)))
  const crashes: { node: NodeId; at: number }[] = []
  const chosen = new Set<number>()
  while (chosen.size < victims) chosen.add(rnd.int(1, n))
  for (const node of chosen) crashes.push({ node, at: rnd.int(1000, 4000) })
  return { seed, n, options, loss, crashes, untilMs: 4000 + detectionBound(n, options) + 500 }
}

describe('SWIM: crashed members are declared dead by every live member, within a bound', () => {
  it('lossless: complete within the bound, and no live member ever suspected', () => {
    let worst = 0
    forSeeds(seedList(60), (seed) => {
      const s = crashScenario(seed, OPTIONS)
      const run = runSwim(s)
      const times = detectionTimes(run)
      expect(times.length).toBeGreaterThan(0)
      for (const t of times) expect(t).toBeLessThanOrEqual(detectionBound(s.n, OPTIONS))
      worst = Math.max(worst, ...times)
      expect(run.falseSuspicions, 'live members suspected').toBe(0)
      expect(run.falseDeaths).toBe(0)
    })
    console.log(`SWIM lossless: every crash known to all within ${worst.toFixed(0)} ms at worst`)
  })

  it('under 5% loss: still complete within the bound, and no live member declared dead', () => {
    let falseSuspicions = 0
    forSeeds(seedList(40), (seed) => {
      const s = crashScenario(seed, OPTIONS, 0.05)
      const run = runSwim(s)
      for (const t of detectionTimes(run))
        expect(t).toBeLessThanOrEqual(detectionBound(s.n, OPTIONS))
      expect(run.falseDeaths, 'live members declared dead').toBe(0)
      falseSuspicions += run.falseSuspicions
    })
    console.log(`SWIM 5% loss: ${falseSuspicions} false suspicions, none became a death`)
  })
})

describe('SWIM: a suspected member refutes and stays alive', () => {
  it('a member paused past the probe timeout is suspected, refutes, and nobody declares it dead', () => {
    // The default timings (period 200 ms, probe timeout 60 ms): a pause of two periods is suspected.
    let suspectedRuns = 0
    forSeeds(seedList(40), (seed) => {
      const run = runSwim({
        seed,
        n: 8,
        options: {},
        untilMs: 8000,
        pauses: [{ node: 3, at: 2000, ms: 400 }],
      })
      const about3 = run.events.filter((e) => 'node' in e.event && e.event.node === 3)
      expect(about3.filter((e) => e.event.type === 'dead')).toEqual([])
      const suspecters = new Set(
        about3.filter((e) => e.event.type === 'suspect').map((e) => e.node),
      )
      if (suspecters.size === 0) return
      suspectedRuns++
      const refutes = run.events.filter((e) => e.node === 3 && e.event.type === 'refute')
      expect(refutes.length).toBeGreaterThan(0)
      // Every member that suspected it took the refutation: its last word on 3 is alive.
      for (const observer of suspecters) {
        const last = about3.filter((e) => e.node === observer).at(-1)!
        expect(last.event.type, `member ${String(observer)}'s view of 3`).toBe('alive')
      }
    })
    expect(suspectedRuns).toBeGreaterThan(10)
  })
})

describe('SWIM: messages per member per period do not grow with the group', () => {
  it('at n = 10 and n = 50 the same, about two (a ping and an ack), lossless', () => {
    const perNodePeriod = (n: number) => {
      const run = runSwim({ seed: 7, n, options: OPTIONS, untilMs: 10_000 })
      const sent = run.net.stats.sent
      return sent / n / (10_000 / 100)
    }
    const small = perNodePeriod(10)
    const large = perNodePeriod(50)
    console.log(
      `messages per member per period: n=10 ${small.toFixed(3)}, n=50 ${large.toFixed(3)}`,
    )
    expect(small).toBeGreaterThan(1.8)
    expect(small).toBeLessThan(2.2)
    expect(Math.abs(large - small) / small).toBeLessThan(0.05)
  })
})
