import type { AdjustedEvent } from '../contract.js'
import type { SyncSample } from './interval-clock.js'

/**
 * A sync sample from a synchronizer's `adjusted` event (Cristian, `ntpSim`, Berkeley): the target
 * `readingMs + offsetMs` is the reference's time within `errorBoundMs` at the instant the event was
 * emitted, whose monotonic reading the caller passes (in the simulator, `net.monotonicOf(node)`
 * from the emit listener). For a synchronizer that measures on the wall clock and may keep a
 * measurement across a step, pass `measuredFromMonotonicMs`, the monotonic reading when the oldest
 * may have been taken, so that a step of the wall clock since then refuses the sample. Cristian
 * times its round trips on the monotonic clock, and `ntpSim` flushes its filters on a step: they
 * need none.
 */
export function sampleFromAdjusted(
  event: AdjustedEvent,
  monotonicMs: number,
  measuredFromMonotonicMs?: number,
): SyncSample {
  return {
    monotonicMs,
    timeMs: event.readingMs + event.offsetMs,
    errorBoundMs: event.errorBoundMs,
    ...(measuredFromMonotonicMs === undefined ? {} : { measuredFromMonotonicMs }),
  }
}
