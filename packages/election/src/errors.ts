import { InvalidArgumentError, SdError } from '@sd/transport'

/** Options outside their domain reuse the transport's class, so one code means one thing. */
export { InvalidArgumentError }

/** `waitForLeader` saw no leader within its timeout. */
export class ElectionTimeoutError extends SdError {
  constructor(ms: number) {
    super(
      'ERR_ELECTION_TIMEOUT',
      `no leader known within ${ms} ms: the group may be partitioned or without a majority`,
    )
  }
}

/** `waitForLeader` was given up by its caller (an AbortSignal). */
export class ElectionAbortedError extends SdError {
  constructor(reason?: unknown) {
    super('ERR_ELECTION_ABORTED', 'waiting for a leader was aborted', { cause: reason })
  }
}

/** The election handle was closed: it no longer follows the group. */
export class ElectionClosedError extends SdError {
  constructor() {
    super('ERR_ELECTION_CLOSED', 'this election handle is closed: create a new one to rejoin')
  }
}
