/**
 * What the parent and its node processes say to each other: one JSON object per line, the node's
 * on its stdout, the parent's on the node's stdin. Times `t` are the machine's monotonic clock in
 * ms (`machineNow`), one clock for every process of the machine.
 */
import type { NodeTimings } from './node/protocol.js'

/**
 * The first retransmission timeout of a node's UDP link (ms; the link's default, given explicitly
 * so that the parent's trace knows it): before a round trip is measured a lost datagram is sent
 * again after this long. During the loss fault, the trace takes a message later than this for one
 * whose first transmission was lost (`trace-drops.ts`).
 */
export const LINK_INITIAL_RTO_MS = 100

/** How the parent starts a node (its argv[2], as JSON). */
export interface NodeConfig {
  id: string
  /** Every member, this node included, with its UDP address. */
  members: Record<string, { host: string; port: number }>
  /** The node's durable state (file storage of @sd/transport). */
  storage: string
  timings: NodeTimings
  /** A deliberate error of this node's hardware clock (ms), for the time sync to correct. */
  skewMs: number
  /** Time spent inside the critical section, between the read and the write (ms). */
  csMs: number
  /** Report every send and delivery, for `--trace`. */
  trace: boolean
  /** Exit on its own after this long (ms), whatever happens: no node outlives a run. */
  maxLifetimeMs: number
  /**
   * The run's time origin (machine ms). The node's monotonic clock (`ctx.monotonic()`, which its
   * leases and timeouts run on) reads the machine's monotonic clock minus this: ms since the
   * parent started, the time base of the trace and of the checkers, so a lease deadline a node
   * emits can be compared with the times of other nodes' events. One machine, one monotonic clock.
   */
  originMs: number
  /**
   * Unix time minus the machine's monotonic clock, read once by the parent: the node's hardware
   * clock is the monotonic clock plus this (and its skew), so it reads like `Date.now()`, from one
   * reading for every node.
   */
  wallOffsetMs: number
}

/** Node -> parent. */
export type NodeLine =
  /** Bound and running; `stored` is what its storage held at boot (durable state survived?). */
  | {
      k: 'ready'
      t: number
      pid: number
      stored: { term: number; boots: number; lockTerm: number }
    }
  /** A protocol event (`p` names the child; `compose` for the composition's own notices). */
  | { k: 'ev'; t: number; p: string; e: Record<string, unknown> }
  /** Counters, every few hundred ms. */
  | {
      k: 'stats'
      t: number
      sent: number
      delivered: number
      retransmissions: number
      /** Messages resent to a restarted peer's new incarnation (the UDP link's `resentAfterRestart`). */
      resent: number
      dropped: number
      unreachable: number
      /** The software clock minus the machine's clock (ms). */
      clockMs: number
    }
  /** An operation on the fenced counter, answered by a `res` line; `t` is its invocation. */
  | { k: 'op'; t: number; op: number; kind: 'read'; token: number }
  | { k: 'op'; t: number; op: number; kind: 'write'; token: number; value: number }
  /** A lock operation invoked (no answer from the parent: the lock's events complete it). */
  | { k: 'invoke'; t: number; op: number; kind: 'acquire' | 'release'; token?: number }
  /** Any operation completed as the node saw it (`t` its completion). */
  | { k: 'done'; t: number; op: number; ok: boolean; token?: number; value?: number }
  /** The node's wall clock was stepped (a `clock-step` line): when, and by how much. */
  | { k: 'stepped'; t: number; deltaMs: number }
  /** The workload stopped (after a `stop`): no more operations will come. */
  | { k: 'stopped'; t: number; increments: number }
  /** For `--trace`: a message sent (`seq` is the sender's) or delivered. */
  | { k: 'send'; t: number; to: string; seq: number; msg: unknown }
  | { k: 'deliver'; t: number; from: string; seq: number }
  | { k: 'error'; t: number; message: string }

/** Parent -> node. */
export type ParentLine =
  /** Start the workload. */
  | { k: 'go' }
  /** The answer to an operation. */
  | { k: 'res'; op: number; ok: true; value: number }
  | { k: 'res'; op: number; ok: false; reason: string }
  /** Stop the workload (finish the operation under way), answer `stopped`. */
  | { k: 'stop' }
  /** Close the transport and exit. */
  | { k: 'exit' }
  /** Step the node's wall clock (`ctx.now()`) by `deltaMs`; its monotonic clock goes on. */
  | { k: 'clock-step'; deltaMs: number }

/**
 * The machine's monotonic clock (CLOCK_MONOTONIC, ms since boot): the same clock in every process
 * of the machine, network namespaces included, so times stamped by different nodes compare.
 * Not `performance.timeOrigin + performance.now()`: its origin pairs a wall-clock reading with a
 * monotonic one taken while the process starts, and now and then a process started under load
 * keeps the two apart for its whole life (seen: 1 of 60 processes started in bursts, 8 ms off; one
 * node of a failing cluster run, 12 ms ahead). That made sound runs look unsafe, and could as well
 * have hidden an unsafe one.
 */
export const machineNow = () => Number(process.hrtime.bigint()) / 1e6

/** A line, or undefined when it is not one of ours (a stray print). */
export function parseLine<T extends { k: string }>(line: string): T | undefined {
  if (!line.startsWith('{')) return undefined
  try {
    const value: unknown = JSON.parse(line)
    // Our own lines, from our own processes: only their kind is checked.
    return typeof value === 'object' &&
      value !== null &&
      'k' in value &&
      typeof value.k === 'string'
      ? (value as T)
      : undefined
  } catch {
    return undefined
  }
}
