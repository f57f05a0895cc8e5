/**
 * Terms as ballots: of the members sorted by id, the one of rank r (0-based) owns the terms r + 1,
 * r + 1 + n, r + 1 + 2n... Bully has no vote, so two processes can both believe they won (a
 * restarted process that missed the newest term, a timeout that lied); with owned terms they still
 * take different terms, and the term stays a fencing token that names one leader.
 */

/** The smallest term above `known` owned by the member of `rank` among `size`. */
export function termAbove(known: number, rank: number, size: number): number {
  const next = known + 1
  return next + ((((rank + 1 - next) % size) + size) % size)
}

/** Whether `term` belongs to the member of `rank` among `size`. */
export function ownsTerm(term: number, rank: number, size: number): boolean {
  return term > 0 && (term - 1) % size === rank
}
