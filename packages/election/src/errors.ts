import { InvalidArgumentError, SdError } from '@sd/transport'

/** Options outside their domain reuse the transport's class, so one code means one thing. */
export { InvalidArgumentError }

/** `waitForLeader` saw no leader within its timeout (or `transferLeadership` no hand-over). */
export class ElectionTimeoutError extends SdError {
  constructor(ms: number, what = 'no leader known') {
    super(
      'ERR_ELECTION_TIMEOUT',
      `${what} within ${ms} ms: the group may be partitioned or without a majority`,
    )
  }
}

/** `waitForLeader` or `transferLeadership` was given up by its caller (an AbortSignal). */
export class ElectionAbortedError extends SdError {
  constructor(reason?: unknown, what = 'waiting for a leader') {
    super('ERR_ELECTION_ABORTED', `${what} was aborted`, { cause: reason })
  }
}

/** The election handle was closed: it no longer follows the group. */
export class ElectionClosedError extends SdError {
  constructor() {
    super('ERR_ELECTION_CLOSED', 'this election handle is closed: create a new one to rejoin')
  }
}

/** `transferLeadership` on a node that does not lead. */
export class NotLeaderError extends SdError {
  constructor(leader: unknown) {
    super(
      'ERR_ELECTION_NOT_LEADER',
      `only the leader can hand over; this node does not lead (leader: ${JSON.stringify(leader ?? null)})`,
    )
  }
}

/** `transferLeadership` to a node that is not a member of the group. */
export class UnknownTargetError extends SdError {
  constructor(to: unknown) {
    super('ERR_ELECTION_UNKNOWN_TARGET', `cannot hand over to ${JSON.stringify(to)}: not a member`)
  }
}

/** `transferLeadership` while this handle's previous transfer has not ended. */
export class TransferInProgressError extends SdError {
  constructor(to: unknown) {
    super(
      'ERR_ELECTION_TRANSFER_IN_PROGRESS',
      `a transfer to ${JSON.stringify(to)} is still in progress: wait for it to settle`,
    )
  }
}

/**
 * A transfer that did not make its target leader: `reason` is the protocol's (`target-silent`,
 * `timeout`, `other-leader`, ...), or `unsupported` for an algorithm without transfers.
 */
export class TransferFailedError extends SdError {
  constructor(
    readonly to: unknown,
    readonly reason: string,
  ) {
    super(
      'ERR_ELECTION_TRANSFER_FAILED',
      `leadership transfer to ${JSON.stringify(to)} failed: ${reason}`,
    )
  }
}
