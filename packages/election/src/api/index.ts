export {
  type AbortSignalLike,
  createElection,
  type Election,
  type ElectionOptions,
  type LeaderView,
  type ObserveOptions,
  type WaitOptions,
} from './election.js'
