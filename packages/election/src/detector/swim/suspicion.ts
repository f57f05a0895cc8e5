/**
 * How long a suspicion lasts before the member is declared dead. SWIM's is fixed; Lifeguard's
 * starts at `max` and shrinks towards `min` as independent members confirm it (`k` expected):
 *   timeout = max(min, max - (max - min) * log(c + 1) / log(k + 1))
 * (Dadgar et al., 2017, as memberlist implements it). A lone prober with bad links must wait
 * long, giving a healthy member time to refute; a failure many members saw is declared fast.
 */
export interface SuspicionBounds {
  minMs: number
  maxMs: number
  /** Confirmations that bring the timeout down to minMs. */
  k: number
}

/** The bounds for a group of `n` members (self included). */
export function suspicionBounds(
  n: number,
  periodMs: number,
  suspicionMult: number,
  suspicionMaxMult: number,
  dynamic: boolean,
): SuspicionBounds {
  const minMs = suspicionMult * Math.max(1, Math.log10(Math.max(1, n))) * periodMs
  if (!dynamic) return { minMs, maxMs: minMs, k: 0 }
  // Confirmations come from members other than the suspect and the first reporter.
  const k = Math.max(0, Math.min(Math.round(suspicionMult) - 2, n - 2))
  return { minMs, maxMs: suspicionMaxMult * minMs, k }
}

/** The timeout after `confirmations` independent confirmations. */
export function suspicionTimeout(bounds: SuspicionBounds, confirmations: number): number {
  const { minMs, maxMs, k } = bounds
  if (k < 1) return minMs // nobody else could confirm it: as memberlist, the least
  const fraction = Math.log(confirmations + 1) / Math.log(k + 1)
  return Math.max(minMs, Math.floor(maxMs - fraction * (maxMs - minMs)))
}
