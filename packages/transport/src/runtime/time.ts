/** A clock: milliseconds, read by `ctx.now()`. */
export interface Clock {
  now(): number
}

export type TimerHandle = unknown

/** Where timers live: real (setTimeout) or virtual (the simulator). */
export interface TimerScheduler {
  schedule(ms: number, fire: () => void): TimerHandle
  cancel(handle: TimerHandle): void
}

/** Wall-clock milliseconds since the Unix epoch. */
export const systemClock: Clock = { now: () => Date.now() }

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
