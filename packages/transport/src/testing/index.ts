export * from './compliance.js'
export * from './settle.js'
