import { InvalidArgumentError, isNodeId, type NodeId } from '@sd/transport'
import { byIdOnly, type Priorities } from '../contract.js'
import {
  type HeartbeatOptions,
  type HeartbeatSettings,
  heartbeatSettings,
} from '../detector/heartbeat.js'
import { positive } from '../ring/options.js'

export interface ChangRobertsOptions {
  /** Who is the better candidate (default: the higher id). */
  priority?: Priorities
  heartbeat?: HeartbeatOptions
  /** Every member starts an election when it starts (the texts' "all initiators" case). */
  startAll?: boolean
  /**
   * The ring: `ring[i]` sends to `ring[i + 1]`, the last to the first; every member must be given
   * the same. Default: the members in ascending id order.
   */
  ring?: readonly NodeId[]
  /**
   * How long a participant waits for ELECTED before it starts over (its election went to a
   * crashed member). Default 3 x n x 50 ms: the longest way round, at 50 ms a hop.
   */
  electionTimeoutMs?: number
}

export interface ChangRobertsSettings {
  priority: Priorities
  heartbeat: HeartbeatSettings
  startAll: boolean
  ring: readonly NodeId[] | undefined
  electionTimeoutMs: (n: number) => number
}

export function resolveOptions(options: ChangRobertsOptions = {}): ChangRobertsSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('changRoberts: options must be an object')
  }
  const { ring } = options
  if (ring !== undefined && !(Array.isArray(ring) && ring.length > 0 && ring.every(isNodeId))) {
    throw new InvalidArgumentError('changRoberts: ring must be a non-empty array of node ids')
  }
  const election = positive('changRoberts', 'electionTimeoutMs', options.electionTimeoutMs)
  return {
    priority: options.priority ?? byIdOnly,
    heartbeat: heartbeatSettings(options.heartbeat),
    startAll: options.startAll === true,
    ring,
    electionTimeoutMs: election !== undefined ? () => election : (n) => 3 * n * 50,
  }
}
