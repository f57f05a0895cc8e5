export * from './compliance.js'
export * from './of-type.js'
export * from './run-in-sim.js'
export * from './settle.js'
