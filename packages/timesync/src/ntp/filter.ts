/**
 * The clock filter of one server (RFC 5905, section 10, simplified): of its last 8 samples, the
 * one with the least delay is the best estimate, since a short round trip leaves the least room
 * for asymmetry. Unlike RFC 5905, samples do not age (no dispersion growth): a filter here lives
 * for one query of a few samples.
 */
import { InvalidArgumentError } from './errors.js'

/** Samples a filter keeps, as in RFC 5905. */
export const CLOCK_FILTER_SIZE = 8

/** What the filter needs of a sample; it keeps and returns the caller's objects. */
export interface FilterSample {
  offsetMs: number
  delayMs: number
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
    this.#samples.push(sample)
    if (this.#samples.length > this.size) this.#samples.shift()
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
