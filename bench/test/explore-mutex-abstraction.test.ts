/**
 * The explore benches' key abstractions for @sd/mutex (`explore-mutex-abstraction.ts`), checked
 * where the full search is small enough: the search with the abstraction reaches exactly the
 * abstract states the full search reaches (each state's abstract key, taken by the invariant along
 * both searches, gives the same set), in fewer states, and mutual exclusion holds in both.
 */
import { lamportMutex, ricartAgrawala } from '@sd/mutex'
import type { SimNetwork } from '@sd/transport'
import { type ExploreScenario, explore, type KeyAbstraction } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { ids, mutexScenario } from '../src/lib/explore-mutex.js'
import {
  lamportCappedTimes,
  ricartAgrawalaDeadClocks,
} from '../src/lib/explore-mutex-abstraction.js'

/** The scenario with an invariant that collects each state's abstract key and checks exclusion. */
function watched(scenario: ExploreScenario, abstraction: KeyAbstraction) {
  const keys = new Set<string>()
  const h = { hi: 0, lo: 0 }
  const run: ExploreScenario = {
    ...scenario,
    invariant({ net, events }) {
      if ((net as SimNetwork).keyHash(h, abstraction)) keys.add(`${h.hi}:${h.lo}`)
      // Emitted in order: acquisitions not yet released are the holders now.
      let inside = 0
      for (const { event } of events) {
        const type = (event as { type: string }).type
        if (type === 'acquired') inside++
        else if (type === 'released') inside--
      }
      return inside > 1 ? 'two holders' : undefined
    },
  }
  return { keys, run }
}

const cases: Array<[string, () => ExploreScenario, KeyAbstraction]> = [
  [
    'Ricart-Agrawala, 3 nodes',
    () => mutexScenario(3, ricartAgrawala()),
    ricartAgrawalaDeadClocks(ids(3) as number[]),
  ],
  [
    'Lamport, 2 nodes',
    () => mutexScenario(2, lamportMutex()),
    lamportCappedTimes(ids(2) as number[]),
  ],
  // 971,403 states in full (about 2 minutes, each state keyed under its renamings too): the
  // smallest where deaf nodes' messages are left out while other nodes still wait, and where the
  // renaming meets done, holding and waiting nodes together.
  [
    'Lamport, 3 nodes',
    () => mutexScenario(3, lamportMutex()),
    lamportCappedTimes(ids(3) as number[]),
  ],
]

describe('the mutex benches key abstractions', () => {
  for (const [name, scenario, abstraction] of cases) {
    it(`reach every abstract state of the full search: ${name}`, { timeout: 600_000 }, () => {
      const options = { timers: 'any-order', maxStates: 2_000_000 } as const
      const full = watched(scenario(), abstraction)
      const merged = watched({ ...scenario(), abstraction }, abstraction)
      const a = explore(full.run, options)
      const b = explore(merged.run, options)
      expect(a.exhausted && b.exhausted).toBe(true)
      expect(b.states).toBeLessThan(a.states)
      expect(merged.keys.size).toBe(full.keys.size)
      for (const key of full.keys) expect(merged.keys.has(key)).toBe(true)
    })
  }
})
