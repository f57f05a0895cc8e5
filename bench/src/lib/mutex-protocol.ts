/**
 * What the mutex benchmark and its worker processes say to each other: one JSON object per line on
 * the worker's stdin (commands) and stdout (events).
 */
import { machineNow } from '../../../test-support/machine-clock.js'

/**
 * The locks compared: ours over the UDP adapter, and two Redis locks. 'centralized-burst' is the
 * centralized lock with option `burst` (SD_MUTEX_BURST, 8 by default): a client that releases and
 * asks again at once keeps its grant, the policy a Redis client gets by taking the key again while
 * the others sleep out their retry. 'centralized-codec' is the centralized lock with its REQUEST,
 * GRANT and RELEASE in binary (`centralizedCodec`) in every process of ours.
 */
export type Contender =
  | 'centralized'
  | 'centralized-burst'
  | 'centralized-codec'
  | 'ricart-agrawala'
  | 'redis-setnx'
  | 'redlock'

/** Whether the contender is our centralized lock, with its coordinator in a process of its own. */
export const isCentralized = (c: Contender) =>
  c === 'centralized' || c === 'centralized-burst' || c === 'centralized-codec'

/** The `burst` of 'centralized-burst': SD_MUTEX_BURST, read alike by the benchmark and its workers. */
export const contenderBurst = burstFromEnv()

function burstFromEnv(): number {
  const burst = Number(process.env.SD_MUTEX_BURST ?? 8)
  if (!Number.isInteger(burst) || burst < 1) {
    throw new RangeError(
      `SD_MUTEX_BURST must be an integer >= 1, got ${process.env.SD_MUTEX_BURST}`,
    )
  }
  return burst
}

/** How one worker takes part in one trial. */
export interface TrialSpec {
  trial: number
  contender: Contender
  /** This worker's node id (ours) or client name (Redis). */
  id: string
  /** 'coordinator' only for the centralized lock's coordinator process, which never asks for the lock. */
  role: 'client' | 'coordinator'
  /** Every node of the group (ours): the clients, and the coordinator for the centralized lock. */
  members: string[]
  coordinator?: string
  redisPort?: number
  /** Redis: the lock's key (a fresh one per trial), its TTL, and the pause before another try. */
  key: string
  ttlMs: number
  retryMs: number
}

/** When to loop, on the machine's monotonic clock (`nowMs`), shared by every process. */
export interface RunSpec {
  trial: number
  startAt: number
  warmupMs: number
  durationMs: number
  /** A worker gives up this long after the measured window if an acquire or release never ends. */
  graceMs: number
}

export type WorkerCommand =
  | { cmd: 'setup'; spec: TrialSpec }
  | { cmd: 'peers'; trial: number; ports: Record<string, number> }
  | { cmd: 'run'; run: RunSpec }
  | { cmd: 'teardown'; trial: number }

/** Ours: the UDP transport's counters over a whole trial (warm-up included). */
export interface DatagramStats {
  datagramsSent: number
  acksSent: number
  retransmissions: number
  /** Datagrams received (the lock-family loops report it; absent elsewhere). */
  datagramsReceived?: number
}

/** One client's loop: acquires completed inside the measured window and their latencies. */
export interface LoopReport {
  acquires: number
  /** Every acquire + release, warm-up included. */
  cycles: number
  /** Acquire latencies in microseconds (request to acquired), in the window. */
  latenciesUs: number[]
  /** User + system CPU time of the client's process over the whole loop (process.cpuUsage), µs. */
  cpuUs: number
  /** Set when an acquire or release did not end by the deadline, or threw. */
  error?: string
}

export type WorkerEvent =
  | { event: 'bound'; trial: number; port: number }
  | { event: 'ready'; trial: number }
  | { event: 'done'; trial: number; report: LoopReport }
  | { event: 'closed'; trial: number; stats?: DatagramStats }
  | { event: 'failed'; trial: number; error: string }

/** CLOCK_MONOTONIC in ms: one clock for every process on the machine, namespaces included. */
export const nowMs = machineNow
