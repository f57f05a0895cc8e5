export {
  type AbortSignalLike,
  createElection,
  type Election,
  type ElectionOptions,
  type LeaderView,
  type WaitOptions,
} from './election.js'
