export type { MaekawaEvent, MaekawaMessage } from './messages.js'
export type { MaekawaOptions } from './options.js'
export { maekawa } from './protocol.js'
export { gridQuorum, gridQuorumRanks } from './quorum.js'
