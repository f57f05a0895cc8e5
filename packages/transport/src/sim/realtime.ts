import { InvalidArgumentError } from '../errors.js'
import type { RunOptions, RunResult } from './options.js'

/**
 * The part of an `AbortSignal` that `runRealtime` uses, declared here so the main entry
 * type-checks without DOM or Node types; a real `AbortSignal` fits.
 */
export interface AbortSignalLike {
  readonly aborted: boolean
  readonly reason?: unknown
  throwIfAborted(): void
}

export type RealtimeOptions = RunOptions & { speed?: number; signal?: AbortSignalLike }

/** The events of a network, as a run goes through them. */
export interface EventLoop {
  /** Virtual time now. */
  now(): number
  /** Virtual time of the next event; undefined when nothing is left. */
  nextTime(): number | undefined
  /** Takes the next event off the queue and handles it. */
  processNext(): void
  /** Ends a run of `events` events: moves the clock to `until` if later, and says where it stands. */
  finish(events: number, until: number): RunResult
}

/** See `SimNetwork.runRealtime`: virtual time mapped onto real time. */
export async function runRealtime(loop: EventLoop, options: RealtimeOptions): Promise<RunResult> {
  const speed = options.speed ?? 1
  if (!(speed > 0)) throw new InvalidArgumentError(`runRealtime(): speed must be > 0, got ${speed}`)
  const until = options.until ?? Number.POSITIVE_INFINITY
  const startReal = performance.now()
  const startVirtual = loop.now()
  let events = 0
  for (;;) {
    options.signal?.throwIfAborted()
    const next = loop.nextTime()
    if (next === undefined || next > until) break
    const wait = startReal + (next - startVirtual) / speed - performance.now()
    // Short naps, so requests added meanwhile are not served late.
    if (wait > 0) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 20)))
      continue
    }
    loop.processNext()
    events++
  }
  return loop.finish(events, until)
}
