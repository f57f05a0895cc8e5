export * from './compliance.js'
export * from './of-type.js'
export * from './settle.js'
