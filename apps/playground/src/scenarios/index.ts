import type { Scenario } from '../scenario.js'
import { flood } from './flood.js'

/** Every scenario `sd list` shows, in tour order. Add new ones here. */
export const scenarios: Scenario[] = [
  flood,
  // @sd/clocks scenarios (lamport, vector, causal-order, total-order, make) go below.
]
