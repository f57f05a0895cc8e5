/** A lock as the benchmark's client loop sees it, whichever implementation is behind it. */
import { setTimeout as sleep } from 'node:timers/promises'
import type { DatagramStats, LoopReport, RunSpec } from './mutex-protocol.js'
import { nowMs } from './mutex-protocol.js'

export interface Locker {
  /** The UDP port the node listens on (ours), or 0. */
  readonly port: number
  /** Ours: the address book, once every node of the trial is bound. */
  connect(ports: Record<string, number>): void
  /** Resolves once this client holds the lock; gives up (rejects) at `deadline` (nowMs). */
  acquire(deadline: number): Promise<void>
  release(deadline: number): Promise<void>
  close(): Promise<void>
  /** Ours: the transport's counters so far. */
  stats?(): DatagramStats
  /** Ours: how the entries so far were granted ('exclusive', 'shared', 'permits'), counted. */
  granted?(): Record<string, number>
}

class DeadlineError extends Error {}

/** `promise`, or a rejection once the monotonic clock passes `deadline`. */
export async function byDeadline<T>(
  promise: Promise<T>,
  deadline: number,
  what: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeadlineError(`${what}: no answer by the deadline`)),
      Math.max(0, deadline - nowMs()),
    )
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The client loop: from `startAt`, acquire and release at once, again and again; acquires that
 * complete inside [startAt + warmupMs, + durationMs) are counted. Ends at the window's end, or at
 * the deadline (window end + graceMs) if the lock stops answering.
 */
export async function clientLoop(locker: Locker, run: RunSpec): Promise<LoopReport> {
  const from = run.startAt + run.warmupMs
  const to = from + run.durationMs
  const deadline = to + run.graceMs
  const latenciesUs: number[] = []
  let cycles = 0
  await sleep(Math.max(0, run.startAt - nowMs()))
  const cpuBefore = process.cpuUsage()
  const cpuUs = () => {
    const used = process.cpuUsage(cpuBefore)
    return used.user + used.system
  }
  try {
    while (nowMs() < to) {
      const asked = nowMs()
      await locker.acquire(deadline)
      const got = nowMs()
      if (got >= from && got < to) latenciesUs.push(Math.round((got - asked) * 1000))
      await locker.release(deadline)
      cycles++
    }
    return { acquires: latenciesUs.length, cycles, latenciesUs, cpuUs: cpuUs() }
  } catch (e) {
    return { acquires: latenciesUs.length, cycles, latenciesUs, cpuUs: cpuUs(), error: String(e) }
  }
}
