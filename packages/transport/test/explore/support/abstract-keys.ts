/** Collecting each state's key under a key abstraction, along a search (the abstraction tests). */
import type { ExploreScenario, KeyAbstraction } from '../../../src/explore/index.js'
import { hashHex } from '../../../src/hash64.js'
import type { SimNetwork } from '../../../src/index.js'

/** The scenario, its invariant also collecting each state's key under `abstraction`. */
export function collecting(scenario: ExploreScenario, abstraction: KeyAbstraction) {
  const keys = new Set<string>()
  const h = { hi: 0, lo: 0 }
  const watched: ExploreScenario = {
    ...scenario,
    invariant(state) {
      if ((state.net as SimNetwork).keyHash(h, abstraction)) keys.add(hashHex(h))
      return scenario.invariant(state)
    },
  }
  return { keys, watched }
}
