/**
 * What the lock-family benchmarks (`mutex.rw`, `mutex.semaphore`) and their worker processes say
 * to each other: one JSON object per line on the worker's stdin (commands) and stdout (events).
 */

/** The locks compared: ours (`centralized()` over UDP) and the Redis locks users would pick. */
export type FamilyContender =
  | 'centralized'
  | 'redis-rw' // hand-written read-write lock (locks-redis-rw.ts)
  | 'redis-semaphore' // redis-semaphore's Semaphore
  | 'redis-multi-semaphore' // redis-semaphore's MultiSemaphore

/** What one client asks for on every acquire. */
export type ClientRole =
  | { kind: 'reader' } // shared
  | { kind: 'writer' } // exclusive
  | { kind: 'permits'; take: number; of: number }

/** Options of `centralized()` a point sets (what the read-write and semaphore benchmarks compare). */
export interface OursOptions {
  readers?: 'fifo' | 'writers-first' | 'readers-first'
  burst?: number
  /** The lock's wire codec (`centralizedCodec` over JSON) in this process's transport. */
  codec?: 'centralized'
}

export interface FamilyTrialSpec {
  trial: number
  contender: FamilyContender
  id: string
  /** 'coordinator': the centralized lock's coordinator process, which never asks for the lock. */
  role: 'client' | 'coordinator'
  /** What this client asks for (clients only). */
  asks?: ClientRole
  /** Ours: options of `centralized()` (every node of the trial gets the same). */
  oursOptions?: OursOptions
  members: string[]
  coordinator: string
  redisPort: number
  /** Redis: the key (prefix) of this trial, the entries' TTL and the pause before another try. */
  key: string
  ttlMs: number
  retryMs: number
}

/** A client's bounded loop, from `startAt` on the machine's monotonic clock (`nowMs`). */
export interface FamilyRunSpec {
  trial: number
  startAt: number
  /** Acquire -> critical section -> release, this many times. */
  ops: number
  /** The critical section: a busy wait of this many microseconds between enter and leave. */
  csUs: number
  /** Gives up (and reports what it did) at this time if an acquire or release never ends. */
  deadline: number
}

/** One client's loop. Times are microseconds on the machine's monotonic clock. */
export interface FamilyLoopReport {
  ops: number
  /** Acquire latencies (request to acquired), microseconds. */
  latenciesUs: number[]
  /** [enter, leave] of every critical section, flattened: the correctness check's input. */
  spans: number[]
  /** When the last release ended (µs); with startAt, the client's part of the trial's duration. */
  finishedUs: number
  /** CPU time of the whole process (user + system, every thread) during the loop, µs. */
  cpuUs: number
  /** Ours: how the entries were granted ('shared', 'permits' or 'exclusive'), counted. */
  granted?: Record<string, number>
  /** Ours: the client's transport over the loop (datagrams sent, of them acks alone, received). */
  datagrams?: { sent: number; acks: number; received: number }
  error?: string
}

export type FamilyCommand =
  | { cmd: 'setup'; spec: FamilyTrialSpec }
  | { cmd: 'peers'; trial: number; ports: Record<string, number> }
  | { cmd: 'run'; run: FamilyRunSpec }
  | { cmd: 'teardown'; trial: number }

export type FamilyEvent =
  | { event: 'bound'; trial: number; port: number }
  | { event: 'ready'; trial: number }
  | { event: 'done'; trial: number; report: FamilyLoopReport }
  | { event: 'closed'; trial: number }
  | { event: 'failed'; trial: number; error: string }
