// What waiting on an election takes: the view waited for, a timeout, an AbortSignal.
import type { NodeId } from '@sd/transport'
import { InvalidArgumentError } from '../errors.js'

/** Who leads, and in which term (the term is the fencing token of whatever the leader guards). */
export interface LeaderView {
  leader: NodeId
  term: number
}

/** What `waitForLeader` needs of an AbortSignal (a DOM or Node AbortSignal is one). */
export interface AbortSignalLike {
  readonly aborted: boolean
  readonly reason?: unknown
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

export interface WaitOptions {
  /** Give up after this many ms (`ElectionTimeoutError`); default: wait as long as it takes. */
  timeoutMs?: number
  /** Give up when aborted (`ElectionAbortedError`, with the signal's reason as `cause`). */
  signal?: AbortSignalLike
}

const MAX_TIMER_MS = 2 ** 31 - 1

/** The timeout of `options` in ms, undefined for none; throws InvalidArgumentError. */
export function checkWait(options: WaitOptions, what = 'waitForLeader'): number | undefined {
  const ms = options.timeoutMs
  if (ms === undefined || ms === Number.POSITIVE_INFINITY) return undefined
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 0 || ms > MAX_TIMER_MS) {
    throw new InvalidArgumentError(
      `${what}: timeoutMs must be a number in 0..${MAX_TIMER_MS} (or Infinity), got ${String(ms)}`,
    )
  }
  return ms
}
