/**
 * Ricart-Agrawala as a readers-writers lock over many seeds: random shared and exclusive acquires
 * in the simulator, judged across all nodes by `checkMutualExclusion` (readers together, never
 * beside a writer; fencing tokens by the contract's rule). Liveness where the algorithm has it:
 * it does not retransmit and does not survive crashes, so under loss and crashes only safety is
 * checked. A broken variant (readers that answer writers at once) must be caught.
 */
import { createRandom, type SimNetwork, type SimNetworkOptions } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { ricartAgrawala } from '../src/ricart-agrawala/index.js'
import { eventsOf, JITTER, runMutex } from './support/harness.js'
import { mixedWorkload, mostHeldAtOnce, readersIgnoreWriters } from './support/shared-runs.js'

type Net = Omit<SimNetworkOptions, 'seed'>
const VARIANTS: Array<{ name: string; alwaysAnswer?: boolean; net: Net; live: boolean }> = [
  { name: 'FIFO links', net: { ...JITTER }, live: true },
  { name: 'reordering links', net: { ...JITTER, fifo: false }, live: true },
  {
    name: 'alwaysAnswer, reordering links',
    alwaysAnswer: true,
    net: { ...JITTER, fifo: false },
    live: true,
  },
  // No retransmission: a lost REQUEST or OK leaves its requester waiting for ever.
  { name: 'lossy links (10%)', net: { ...JITTER, fifo: false, loss: 0.1 }, live: false },
  // A late copy of an older request never replaces the newer one deferred, so all are served.
  { name: 'duplicating links (20%)', net: { ...JITTER, fifo: false, duplicate: 0.2 }, live: true },
]

type Factory = ReturnType<typeof ricartAgrawala>

/** The property of one seed: no violation across all nodes; with `live`, every acquire served. */
function mixedProperty(factory: Factory, v: (typeof VARIANTS)[number], seed: number) {
  const { ids, asks } = mixedWorkload(createRandom(`ra-rw-${v.name}-${seed}`), 4, 200)
  const run = runMutex(ids, factory, asks, { seed, net: v.net })
  expect(run.violations, 'mutual exclusion').toEqual([])
  if (v.live) {
    expect(run.granted).toBe(run.asked)
    // Duplicates are ignored by name (a second OK, an older request's copy); nothing else is.
    if (!('duplicate' in v.net)) {
      expect(run.events.filter((e) => e.event.type === 'ignored')).toEqual([])
    }
    expect(eventsOf(run, 'peer-suspected')).toEqual([])
  }
}

describe('ricartAgrawala (shared): properties over random mixed workloads', () => {
  for (const v of VARIANTS) {
    const what = v.live ? 'safe, and every acquire served' : 'safe (liveness not claimed)'
    it(`${v.name}: ${what}`, () => {
      const factory = ricartAgrawala({ alwaysAnswer: v.alwaysAnswer })
      forSeeds(seedList(150), (seed) => mixedProperty(factory, v, seed))
    })
  }

  it('crashes and restarts (no crash tolerance: safety only)', () => {
    forSeeds(seedList(100), (seed) => {
      const random = createRandom(`ra-rw-crash-${seed}`)
      const { ids, asks } = mixedWorkload(random, 4, 200)
      const faults = (net: SimNetwork) => {
        const id = ids[random.int(0, ids.length - 1)]!
        const down = random.int(0, 200)
        net.at(down, () => {
          if (!net.isCrashed(id)) net.crash(id)
        })
        net.at(down + random.int(5, 50), () => {
          if (net.isCrashed(id)) net.restart(id)
        })
      }
      const run = runMutex(ids, ricartAgrawala(), asks, {
        seed,
        net: { ...JITTER, fifo: seed % 2 === 0 },
        faults,
      })
      expect(run.violations).toEqual([])
    })
  })

  it('readers do hold together: with only shared acquires entries overlap, never with exclusive ones', () => {
    let overlapping = 0
    forSeeds(seedList(60), (seed) => {
      for (const share of [1, 0]) {
        const { ids, asks } = mixedWorkload(createRandom(`ra-rw-gain-${seed}`), 4, 200, share)
        const run = runMutex(ids, ricartAgrawala(), asks, { seed, net: { ...JITTER } })
        expect(run.violations).toEqual([])
        expect(run.granted).toBe(run.asked)
        const most = mostHeldAtOnce(run.events)
        if (share === 0) expect(most).toBe(1)
        else if (most > 1) overlapping++
      }
    })
    // Four asks per node in 200 ms, holds up to 25 ms: most runs have readers side by side.
    expect(overlapping).toBeGreaterThan(seedList(60).length / 2)
  })

  it('the broken variant (readers answer writers at once) fails the property, naming a seed', () => {
    const broken = readersIgnoreWriters(ricartAgrawala()) as Factory
    for (const v of VARIANTS.slice(0, 2)) {
      expect(() => forSeeds(seedList(150), (seed) => mixedProperty(broken, v, seed))).toThrow(
        /failed with seed \d+: mutual exclusion: expected/,
      )
    }
  })
})
