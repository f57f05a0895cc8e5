// The wait-for graph's public exports.
export { deadlockedOf, elementaryCyclesOf, findCycleOf, sccOf } from './functions.js'
export type {
  ComponentOptions,
  ElementaryCyclesOptions,
  GraphSize,
  ProcessId,
  Wait,
} from './types.js'
export { WaitForGraph } from './wait-for-graph.js'
