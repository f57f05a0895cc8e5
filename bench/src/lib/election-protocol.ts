/**
 * What the election benchmark and its worker processes say to each other: one JSON object per line
 * on the worker's stdin (commands) and stdout (events). Each worker runs one node of a 3-node group
 * per trial.
 */
import { machineNow } from '../../../test-support/machine-clock.js'

/**
 * Ours: bully or majority election over the UDP transport; `bully-phi` is the bully with the phi
 * accrual detector (`ElectionSettings.phi`), `majority-no-prevote` the majority mode with
 * `preVote: false` (the contrast of the rejoin figure). Theirs: node-discover 1.2.1.
 */
export type Contender = 'bully' | 'bully-phi' | 'majority' | 'majority-no-prevote' | 'node-discover'

/** The phi accrual detector's knobs `bully-phi` runs with (the rest at their defaults). */
export interface PhiKnobs {
  threshold: number
  acceptablePauseMs: number
  /** PhiOptions.localPauseMs (absent: the default, never). */
  localPauseMs?: number
  /** The bully's trustDetector: the leader its own detector declared silent is not asked. */
  trustDetector: boolean
  /** Its heartbeat interval (and the bully's okTimeoutMs, which follows it), ms. */
  heartbeatIntervalMs: number
}

/** Timing settings, the same for every contender (node-discover's names, ours derived). */
export interface ElectionSettings {
  /** Ours: heartbeat.intervalMs. node-discover: helloInterval. */
  helloIntervalMs: number
  /** node-discover only: checkInterval. */
  checkIntervalMs: number
  /** Ours: heartbeat.timeoutMs. node-discover: nodeTimeout. */
  nodeTimeoutMs: number
  /** node-discover only: masterTimeout. */
  masterTimeoutMs: number
  /** `bully-phi` only: heartbeat.detector = { phi }. */
  phi: PhiKnobs
}

/** How one worker takes part in one trial. */
export interface NodeSpec {
  trial: number
  contender: Contender
  /** This node's id ('n1'...'n3'): the bully's order, node-discover's weight (the digit). */
  id: string
  /** Every node of the group. */
  members: string[]
  /** The address to bind (127.0.0.1 on loopback, the namespace's address in a namespace). */
  host: string
  settings: ElectionSettings
}

export type WorkerCommand =
  | { cmd: 'setup'; spec: NodeSpec }
  /** The other nodes' addresses, 'host:port'; the node starts. */
  | { cmd: 'start'; trial: number; peers: Record<string, string> }
  | { cmd: 'teardown'; trial: number }

/** What a node believes, from `at` on (until its next view). */
export interface View {
  trial: number
  id: string
  /** The leader it follows (itself included), or null: none, or (node-discover) several masters. */
  leader: string | null
  /** It believes itself leader (ours: isLeader(); node-discover: it is a master). */
  self: boolean
  /** Ours: the term. node-discover: the number of masters it knows, itself included. */
  term?: number
  masters?: number
  /** Ours: the highest term this node stood for as a candidate (majority mode), if any. */
  stood?: number
  /** On the machine's monotonic clock (`nowMs`). */
  at: number
}

/**
 * Ours only: one of the protocol's own events (`leader-lost`, `election-started`, `ok`, `leader`),
 * when it was emitted, so a failover can be broken down into detection, election and acceptance.
 */
export interface Mark {
  trial: number
  id: string
  type: string
  /** `leader` events: the leader named. */
  leader?: string
  at: number
}

export type WorkerEvent =
  /** The worker has loaded everything and takes commands. */
  | { event: 'hello'; pid: number }
  | { event: 'bound'; trial: number; port: number }
  | { event: 'started'; trial: number }
  | ({ event: 'view' } & View)
  | ({ event: 'mark' } & Mark)
  | { event: 'closed'; trial: number }
  | { event: 'failed'; trial: number; error: string }

/** CLOCK_MONOTONIC in ms: one clock for every process on the machine, namespaces included. */
export const nowMs = machineNow
