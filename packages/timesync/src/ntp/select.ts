/**
 * Source selection by interval intersection (Marzullo's algorithm, as RFC 5905 section 11.2.1
 * uses it, without the midpoint count). A server's correctness interval [θ − λ, θ + λ] contains
 * the true offset if the server is right (λ: its root distance). With n servers, the smallest
 * number f of falsetickers (f < n/2) is found for which some point lies in n − f intervals; the
 * intersection runs from the lowest such point to the highest. Servers whose interval overlaps it
 * are truechimers, the others falsetickers. Without a majority nothing is chosen, and the result
 * says so.
 */
import { InvalidArgumentError } from './errors.js'

/** What selection needs of a server's estimate; it keeps and returns the caller's objects. */
export interface SourceEstimate {
  /** The server's clock minus ours, ms. */
  offsetMs: number
  /** λ, ms: the true offset is within [offsetMs − λ, offsetMs + λ] if the server is right. */
  rootDistanceMs: number
}

/** A closed interval of offsets, ms. */
export interface OffsetInterval {
  lowMs: number
  highMs: number
}

/** A majority of servers agree: the truechimers, the rest, and the combined offset. */
export interface MajoritySelection<S> {
  majority: true
  /** Servers whose interval overlaps the intersection, in input order. */
  truechimers: S[]
  /** Servers whose interval misses it, in input order (fewer than half of all). */
  falsetickers: S[]
  /** From the lowest to the highest offset inside n − f intervals. */
  intersection: OffsetInterval
  /** f: how many intervals the intersection was allowed to miss. */
  falsetickersAllowed: number
  /**
   * The truechimers' offsets averaged with weights 1/λ (the tighter bound counts more), as
   * RFC 5905's clock combine does with root distances, ms.
   */
  offsetMs: number
}

/** No majority agrees (or no server was given): no offset can be trusted. */
export interface NoMajority {
  majority: false
  reason: 'no-sources' | 'no-majority'
  /** Servers given. */
  sources: number
  /** The most intervals that share a point: at most half of `sources`. */
  largestAgreement: number
}

/** The outcome of `selectSources`. */
export type Selection<S> = MajoritySelection<S> | NoMajority

/** λ below this counts as this, so that a zero distance does not get an infinite weight. */
const MIN_DISTANCE_MS = 1e-6

/** Finds the truechimers among `sources` (see the module comment). */
export function selectSources<S extends SourceEstimate>(sources: readonly S[]): Selection<S> {
  for (const s of sources)
    if (!Number.isFinite(s.offsetMs) || !Number.isFinite(s.rootDistanceMs) || s.rootDistanceMs < 0)
      throw new InvalidArgumentError(
        `a source needs a finite offset and a finite root distance >= 0, got offset ${s.offsetMs}, distance ${s.rootDistanceMs}`,
      )
  const n = sources.length
  if (n === 0) return { majority: false, reason: 'no-sources', sources: 0, largestAgreement: 0 }
  // Endpoints: +1 opens an interval, -1 closes one. Intervals are closed: at equal values an
  // opening sorts before a closing, so intervals that touch share that point.
  const ends = sources
    .flatMap((s) => [
      { at: s.offsetMs - s.rootDistanceMs, step: 1 },
      { at: s.offsetMs + s.rootDistanceMs, step: -1 },
    ])
    .sort((a, b) => a.at - b.at || b.step - a.step)
  for (let f = 0; 2 * f < n; f++) {
    const low = firstReaching(ends, n - f, 1)
    const high = firstReaching([...ends].reverse(), n - f, -1)
    if (low === undefined || high === undefined || low > high) continue
    const truechimers: S[] = []
    const falsetickers: S[] = []
    for (const s of sources) {
      const overlaps = s.offsetMs - s.rootDistanceMs <= high && s.offsetMs + s.rootDistanceMs >= low
      ;(overlaps ? truechimers : falsetickers).push(s)
    }
    return {
      majority: true,
      truechimers,
      falsetickers,
      intersection: { lowMs: low, highMs: high },
      falsetickersAllowed: f,
      offsetMs: weightedOffset(truechimers),
    }
  }
  return { majority: false, reason: 'no-majority', sources: n, largestAgreement: deepest(ends) }
}

/** Sweeping in `direction` (1 up, -1 down), the first value covered by `need` intervals. */
function firstReaching(
  ends: readonly { at: number; step: number }[],
  need: number,
  direction: 1 | -1,
): number | undefined {
  let covering = 0
  for (const e of ends) {
    covering += e.step * direction
    if (covering >= need) return e.at
  }
  return undefined
}

function deepest(ends: readonly { at: number; step: number }[]): number {
  let covering = 0
  let most = 0
  for (const e of ends) {
    covering += e.step
    most = Math.max(most, covering)
  }
  return most
}

function weightedOffset(sources: readonly SourceEstimate[]): number {
  let weights = 0
  let sum = 0
  for (const s of sources) {
    const w = 1 / Math.max(s.rootDistanceMs, MIN_DISTANCE_MS)
    weights += w
    sum += w * s.offsetMs
  }
  return sum / weights
}
