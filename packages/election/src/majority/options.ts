import { isFiniteNumber as finite, InvalidArgumentError } from '@sd/transport'
import { byIdOnly, type Priorities } from '../contract.js'
import { type HeartbeatOptions, heartbeatSettings } from '../detector/heartbeat.js'
import type { PhiSettings } from '../detector/phi-accrual.js'

export interface MajorityOptions {
  /**
   * Heartbeat interval and suspicion timeout (defaults 100 ms and 5 intervals), and how a follower
   * suspects the leader: `detector: 'timeout'` (default) or `{ phi: {...} }` (phi accrual, as for
   * the other elections). Whatever the detector, votes and the lease still count timeoutMs: a
   * follower refuses other candidates for timeoutMs after a heartbeat, so phi can make an
   * election later than the timeout (a jittery or lossy link), never sooner.
   */
  heartbeat?: HeartbeatOptions
  /** Who is the better candidate (default: the higher id). Better candidates stand sooner. */
  priority?: Priorities
  /**
   * When a node stands after it suspects the leader, ms after the suspicion: a window cut into n
   * equal slots by rank (the best node the first slot, the worst the last), in which each node
   * picks a random time inside its own slot. Default `{ min: 0, max: timeoutMs }`.
   */
  candidacyDelayMs?: { min: number; max: number }
  /**
   * How long a candidate waits for the votes of a majority before it gives the round up, ms.
   * At most timeoutMs (votes older than that no longer hold the voters back, see the lease).
   * Default timeoutMs.
   */
  voteTimeoutMs?: number
  /**
   * Ask first whether a majority would vote (PreVote, Raft thesis §9.6), and stand in a new term
   * only if so. Default true: a node cut off in a minority then spends no term, and one that
   * rejoins starts no election. `false` stands at once (for comparison: the terms it inflates
   * split later elections along the old partition line).
   */
  preVote?: boolean
  /**
   * Take no part until a view request names this node (it follows an agreed membership and may
   * be a joiner): passive until then, as a node out of the view is. Default false: the group is
   * itself and ctx.peers until a view request says otherwise.
   */
  awaitView?: boolean
  /**
   * As leader, emit `member-silent { node, term, silentMs }` once for each member of the group
   * that acknowledged no heartbeat for this long, ms (again if it is heard and falls silent once
   * more). `electionToMembership` turns it into the agreed membership's `remove`, so a dead
   * member leaves the view. At least timeoutMs. Default: never.
   */
  silentAfterMs?: number
}

/** @deprecated Use MajorityOptions. */
export type MajorityElectionOptions = MajorityOptions

export interface MajoritySettings {
  intervalMs: number
  timeoutMs: number
  /** Absent: the timeout. */
  detector?: { phi: PhiSettings }
  priority: Priorities
  delayMinMs: number
  delayMaxMs: number
  voteTimeoutMs: number
  preVote: boolean
  awaitView: boolean
  /** Absent: never reported. */
  silentAfterMs?: number
}

/** Checks the options once, when the factory is built; throws InvalidArgumentError. */
export function resolveOptions(options: MajorityOptions = {}): MajoritySettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('majorityElection: options must be an object')
  }
  const { intervalMs, timeoutMs, detector } = heartbeatSettings(options.heartbeat)
  const priority = options.priority ?? byIdOnly
  if (typeof priority !== 'function') {
    throw new InvalidArgumentError('majorityElection: priority must be a function of a node id')
  }
  if ('intervalMs' in options || 'timeoutMs' in options) {
    throw new InvalidArgumentError(
      'majorityElection: pass intervalMs and timeoutMs inside heartbeat: { intervalMs, timeoutMs }',
    )
  }
  const delay = options.candidacyDelayMs ?? { min: 0, max: timeoutMs }
  if (typeof delay !== 'object' || delay === null) {
    throw new InvalidArgumentError('majorityElection: candidacyDelayMs must be { min, max }')
  }
  if (!(finite(delay.min) && finite(delay.max) && delay.min >= 0 && delay.max > delay.min)) {
    throw new InvalidArgumentError(
      `majorityElection: candidacyDelayMs must have finite 0 <= min < max, got ` +
        `{ min: ${delay.min}, max: ${delay.max} } (without a window to spread candidates over, ` +
        'split votes may repeat forever)',
    )
  }
  const voteTimeoutMs = options.voteTimeoutMs ?? timeoutMs
  if (!(finite(voteTimeoutMs) && voteTimeoutMs > 0 && voteTimeoutMs <= timeoutMs)) {
    throw new InvalidArgumentError(
      `majorityElection: voteTimeoutMs must be a number in (0, timeoutMs = ${timeoutMs}], got ` +
        `${voteTimeoutMs}`,
    )
  }
  const preVote = options.preVote ?? true
  if (typeof preVote !== 'boolean') {
    throw new InvalidArgumentError(`majorityElection: preVote must be a boolean, got ${preVote}`)
  }
  const awaitView = options.awaitView ?? false
  if (typeof awaitView !== 'boolean') {
    throw new InvalidArgumentError(
      `majorityElection: awaitView must be a boolean, got ${awaitView}`,
    )
  }
  const silentAfterMs = options.silentAfterMs
  if (silentAfterMs !== undefined && !(finite(silentAfterMs) && silentAfterMs >= timeoutMs)) {
    throw new InvalidArgumentError(
      `majorityElection: silentAfterMs must be a number >= timeoutMs (${timeoutMs}), got ` +
        `${silentAfterMs}`,
    )
  }
  return {
    awaitView,
    intervalMs,
    timeoutMs,
    priority,
    delayMinMs: delay.min,
    delayMaxMs: delay.max,
    voteTimeoutMs,
    preVote,
    ...(detector === undefined ? {} : { detector }),
    ...(silentAfterMs === undefined ? {} : { silentAfterMs }),
  }
}
