import { InvalidArgumentError } from '@sd/transport'
import { byIdOnly, type Priorities } from '../contract.js'
import {
  type HeartbeatOptions,
  type HeartbeatSettings,
  heartbeatSettings,
} from '../detector/heartbeat.js'

export interface BullyOptions {
  /** The leader's heartbeats and the followers' silence timeout (defaults 100 ms and 500 ms). */
  heartbeat?: HeartbeatOptions
  /**
   * How long an election waits for an OK before the node declares itself leader, ms. It must
   * exceed a round trip (ELECTION there, OK back). Default: the heartbeat interval (100 ms with
   * the default heartbeat), which assumes messages take well under 50 ms.
   */
  okTimeoutMs?: number
  /**
   * After an OK, how long to wait for a COORDINATOR before starting a new election, ms. The
   * better candidate runs its own election first (up to okTimeoutMs, plus the messages), so this
   * must exceed okTimeoutMs. Default 3 x okTimeoutMs.
   */
  coordinatorTimeoutMs?: number
  /** Who is the better candidate; default by id only (the higher id wins). */
  priority?: Priorities
  /**
   * Default false (the textbook bully). When true, a node whose own detector declared the leader
   * silent does not ask that leader in the election that follows, nor wait for its OK: with no
   * other better candidate it announces at once, one okTimeoutMs sooner. A departure from the
   * textbook, paid under a false suspicion: the leader, alive after all, is not asked, so instead
   * of answering OK (no new term) it hears a COORDINATOR from a worse candidate and bullies back
   * with an election of its own: two new terms and, until its COORDINATOR arrives, two leaders.
   */
  trustDetector?: boolean
}

export interface BullySettings {
  heartbeat: HeartbeatSettings
  okTimeoutMs: number
  coordinatorTimeoutMs: number
  priority: Priorities
  trustDetector: boolean
}

const positive = (name: string, v: unknown): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new InvalidArgumentError(
      `bully: ${name} must be a finite number above 0, got ${String(v)}`,
    )
  }
  return v
}

/** Options with their defaults applied; throws InvalidArgumentError saying what to change. */
export function resolveOptions(options: BullyOptions = {}): BullySettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('bully: options must be an object')
  }
  if (
    options.heartbeat !== undefined &&
    (typeof options.heartbeat !== 'object' || options.heartbeat === null)
  ) {
    throw new InvalidArgumentError('bully: heartbeat must be an object')
  }
  const heartbeat = heartbeatSettings(options.heartbeat)
  const okTimeoutMs = positive('okTimeoutMs', options.okTimeoutMs ?? heartbeat.intervalMs)
  const coordinatorTimeoutMs = positive(
    'coordinatorTimeoutMs',
    options.coordinatorTimeoutMs ?? 3 * okTimeoutMs,
  )
  if (coordinatorTimeoutMs <= okTimeoutMs) {
    throw new InvalidArgumentError(
      `bully: coordinatorTimeoutMs (${coordinatorTimeoutMs}) must be above okTimeoutMs ` +
        `(${okTimeoutMs}): the candidate that answered OK waits okTimeoutMs itself before it ` +
        'announces',
    )
  }
  const priority = options.priority ?? byIdOnly
  if (typeof priority !== 'function') {
    throw new InvalidArgumentError('bully: priority must be a function from node id to number')
  }
  const trustDetector = options.trustDetector ?? false
  if (typeof trustDetector !== 'boolean') {
    throw new InvalidArgumentError(
      `bully: trustDetector must be true or false, got ${String(trustDetector)}`,
    )
  }
  return { heartbeat, okTimeoutMs, coordinatorTimeoutMs, priority, trustDetector }
}
