export * from './graph/index.js'
