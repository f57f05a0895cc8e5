/** A clock: milliseconds, read by `ctx.now()`. */
export interface Clock {
  now(): number
}

export type TimerHandle = unknown

/** Where timers live: real (setTimeout) or virtual (the simulator). */
export interface TimerScheduler {
  /** `key` is the protocol's name for the timer (the simulator's state fingerprint shows it). */
  schedule(ms: number, fire: () => void, key?: string): TimerHandle
  cancel(handle: TimerHandle): void
}

/** Wall-clock milliseconds since the Unix epoch. It can step (NTP, an operator): never time a duration with it. */
export const systemClock: Clock = { now: () => Date.now() }

/**
 * A monotonic clock: milliseconds from an arbitrary origin, never stepped, running at the rate of
 * the machine's oscillator (`performance.now()`). Leases, timeouts and failure detection read it.
 */
export const monotonicClock: Clock = {
  now: () => (globalThis as unknown as { performance: { now(): number } }).performance.now(),
}

/** Real timers. Unref'd so a forgotten protocol never keeps the process alive on its own. */
export const realTimers: TimerScheduler = {
  schedule(ms, fire) {
    const handle = setTimeout(fire, ms)
    handle.unref?.()
    return handle
  },
  cancel(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>)
  },
}
