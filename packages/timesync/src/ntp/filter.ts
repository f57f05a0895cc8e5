/**
 * The clock filter of one server (RFC 5905, section 10, simplified): of its last 8 samples, the
 * one with the least delay is the best estimate, since a short round trip leaves the least room
 * for asymmetry. `best` does not age samples (a filter of one query's few samples needs not);
 * `bestAt` does, for a filter that lives across polls: a sample's dispersion grows at PHI per ms
 * of its age, since our clock may have drifted that much from the server's since it was measured.
 */
import { InvalidArgumentError } from './errors.js'
import { FREQUENCY_TOLERANCE } from './on-wire.js'

/** Samples a filter keeps, as in RFC 5905. */
export const CLOCK_FILTER_SIZE = 8

/** What the filter needs of a sample; it keeps and returns the caller's objects. */
export interface FilterSample {
  offsetMs: number
  delayMs: number
  /**
   * When it was measured, on a clock that never steps (a monotonic one), ms: `bestAt` ages the
   * sample from it. Without it the sample does not age.
   */
  measuredAtMs?: number
}

/** A filter's best sample at some instant, with what its age adds to its error bound. */
export interface AgedSample<S> {
  sample: S
  /** How long ago it was measured, ms (0 for a sample without `measuredAtMs`). */
  ageMs: number
  /** PHI × age: the dispersion the sample gained since it was measured, ms. */
  agingMs: number
}

/** The last `size` samples of one server and the best of them. */
export class ClockFilter<S extends FilterSample = FilterSample> {
  readonly size: number
  readonly #samples: S[] = []

  constructor(size: number = CLOCK_FILTER_SIZE) {
    if (!Number.isInteger(size) || size < 1)
      throw new InvalidArgumentError(`a clock filter keeps 1 sample or more, got ${size}`)
    this.size = size
  }

  /** Adds a sample, forgetting the oldest beyond `size`. */
  add(sample: S): void {
    if (!Number.isFinite(sample.offsetMs) || !Number.isFinite(sample.delayMs) || sample.delayMs < 0)
      throw new InvalidArgumentError(
        `a filter sample needs a finite offset and a finite delay >= 0, got offset ${sample.offsetMs}, delay ${sample.delayMs}`,
      )
    if (sample.measuredAtMs !== undefined && !Number.isFinite(sample.measuredAtMs))
      throw new InvalidArgumentError(
        `a filter sample's measuredAtMs must be finite, got ${sample.measuredAtMs}`,
      )
    this.#samples.push(sample)
    if (this.#samples.length > this.size) this.#samples.shift()
  }

  /** Forgets every sample (after a step of the clock they were measured on); how many there were. */
  flush(): number {
    const dropped = this.#samples.length
    this.#samples.length = 0
    return dropped
  }

  /** Samples kept, at most `size`. */
  get count(): number {
    return this.#samples.length
  }

  /** The samples kept, oldest first. */
  get samples(): readonly S[] {
    return [...this.#samples]
  }

  /** The sample with the least delay (the most recent of equals); undefined when empty. */
  get best(): S | undefined {
    let best: S | undefined
    for (const s of this.#samples) if (best === undefined || s.delayMs <= best.delayMs) best = s
    return best
  }

  /**
   * The sample with the least distance δ / 2 + PHI × age at `nowMs` (same clock as the samples'
   * `measuredAtMs`), the most recent of equals, as RFC 5905's clock filter sorts; undefined when
   * empty. An old sample of a short round trip loses to a fresh one of a slightly longer trip.
   */
  bestAt(nowMs: number): AgedSample<S> | undefined {
    let best: AgedSample<S> | undefined
    let bestDistance = Number.POSITIVE_INFINITY
    for (const sample of this.#samples) {
      const ageMs = Math.max(0, nowMs - (sample.measuredAtMs ?? nowMs))
      const agingMs = FREQUENCY_TOLERANCE * ageMs
      const distance = sample.delayMs / 2 + agingMs
      if (distance <= bestDistance) {
        best = { sample, ageMs, agingMs }
        bestDistance = distance
      }
    }
    return best
  }

  /** The best sample's offset, ms. */
  get offsetMs(): number | undefined {
    return this.best?.offsetMs
  }

  /** The best sample's delay, ms. */
  get delayMs(): number | undefined {
    return this.best?.delayMs
  }

  /**
   * RMS of the other samples' offsets minus the best one's, ms (RFC 5905's peer jitter):
   * 0 with fewer than two samples.
   */
  get jitterMs(): number {
    const best = this.best
    if (best === undefined || this.#samples.length < 2) return 0
    let sum = 0
    for (const s of this.#samples) sum += (s.offsetMs - best.offsetMs) ** 2
    return Math.sqrt(sum / (this.#samples.length - 1))
  }
}
