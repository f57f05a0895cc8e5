import { InvalidArgumentError } from '@sd/transport'
import { byIdOnly, type Priorities } from '../contract.js'
import {
  type HeartbeatOptions,
  type HeartbeatSettings,
  heartbeatSettings,
} from '../detector/heartbeat.js'

export interface RingOptions {
  /** Who is the better candidate (default: the higher id). */
  priority?: Priorities
  heartbeat?: HeartbeatOptions
  /**
   * How long a pass waits for its ACK before the successor is taken as crashed and skipped
   * (default 50 ms). Keep it above a round trip: a late ACK skips a live member, which then
   * misses that election.
   */
  ackTimeoutMs?: number
  /**
   * How long a member that took part in an election waits for its COORDINATOR before it starts
   * another (the message died with a member that crashed holding it). Default 3 x n x
   * ackTimeoutMs: two circulations, and a skip at every member.
   */
  electionTimeoutMs?: number
}

/** @deprecated Use RingOptions. */
export type RingElectionOptions = RingOptions

export interface RingSettings {
  priority: Priorities
  heartbeat: HeartbeatSettings
  ackTimeoutMs: number
  electionTimeoutMs: (n: number) => number
}

export function positive(where: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError(
      `${where}: ${name} must be a finite number > 0, got ${String(value)}`,
    )
  }
  return value
}

export function resolveOptions(options: RingOptions = {}): RingSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('ringElection: options must be an object')
  }
  const ackTimeoutMs = positive('ringElection', 'ackTimeoutMs', options.ackTimeoutMs) ?? 50
  const election = positive('ringElection', 'electionTimeoutMs', options.electionTimeoutMs)
  return {
    priority: options.priority ?? byIdOnly,
    heartbeat: heartbeatSettings(options.heartbeat),
    ackTimeoutMs,
    electionTimeoutMs: election !== undefined ? () => election : (n) => 3 * n * ackTimeoutMs,
  }
}
