import type { AdjustedEvent } from '../contract.js'
import type { SyncSample } from './interval-clock.js'

/**
 * A sync sample from a synchronizer's `adjusted` event (Cristian, `ntpSim`, Berkeley): the target
 * `readingMs + offsetMs` is the reference's time within `errorBoundMs` at the instant the event was
 * emitted, whose monotonic reading the caller passes (in the simulator, `net.monotonicOf(node)`
 * from the emit listener).
 */
export function sampleFromAdjusted(event: AdjustedEvent, monotonicMs: number): SyncSample {
  return {
    monotonicMs,
    timeMs: event.readingMs + event.offsetMs,
    errorBoundMs: event.errorBoundMs,
  }
}
