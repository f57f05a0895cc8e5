import { InvalidArgumentError } from '@sd/transport'

/**
 * The probability that the quorum mutex breaks mutual exclusion, as the course texts give it:
 *
 *   P_v = sum over k = 2m - n .. n of C(m, k) p^k (1 - p)^(m - k)
 *
 * with n coordinators, quorums of m > n/2 grants, and p the probability that one given coordinator
 * crashes and restarts (forgetting its grant) within the window of a critical section. Two quorums
 * of m share at least 2m - n coordinators; the sum counts k of the m restarting. C(m, k) = 0 for
 * k > m, so the sum really stops at m.
 */
export function violationProbability(n: number, m: number, p: number): number {
  return Math.min(1, Math.exp(logViolationProbability(n, m, p)))
}

/**
 * The natural logarithm of `violationProbability(n, m, p)` (-Infinity when it is 0): it stays
 * finite where P_v itself would underflow to 0 (large n, small p).
 */
export function logViolationProbability(n: number, m: number, p: number): number {
  validate(n, m, p)
  const from = 2 * m - n // >= 1 since m > n/2
  const to = m // C(m, k) = 0 beyond
  if (p === 0) return Number.NEGATIVE_INFINITY
  if (p === 1) return 0 // only k = m survives: C(m, m) 1^m 0^0
  const logRatio = Math.log(p) - Math.log1p(-p)
  // log of the first term, C(m, from) p^from (1 - p)^(m - from), then each next term from the
  // previous one (term_k = term_{k-1} (m - k + 1) / k p / (1 - p)): O(m) and never a huge number.
  let logTerm = from * Math.log(p) + (m - from) * Math.log1p(-p)
  for (let i = 1; i <= from; i++) logTerm += Math.log(m - from + i) - Math.log(i)
  // Log-sum-exp in one pass, rescaling whenever a larger term shows up.
  let max = logTerm
  let sum = 1
  for (let k = from + 1; k <= to; k++) {
    logTerm += Math.log(m - k + 1) - Math.log(k) + logRatio
    if (logTerm > max) {
      sum = sum * Math.exp(max - logTerm) + 1
      max = logTerm
    } else {
      sum += Math.exp(logTerm - max)
    }
  }
  return Math.min(0, max + Math.log(sum))
}

function validate(n: number, m: number, p: number): void {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError(`violationProbability: n must be an integer >= 1, got ${n}`)
  }
  if (!Number.isSafeInteger(m) || !(2 * m > n) || m > n) {
    throw new InvalidArgumentError(
      `violationProbability: m must be an integer with n/2 < m <= n (n = ${n}), got ${m}`,
    )
  }
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) {
    throw new InvalidArgumentError(`violationProbability: p must be in [0, 1], got ${p}`)
  }
}
