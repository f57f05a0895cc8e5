import { compareNodeIds, LamportClock } from '@sd/clocks'
import { InvalidArgumentError, isNonNegInt, type NodeId } from '@sd/transport'

/** Ranks fit in the low 16 bits of a fencing token. */
export const MAX_MEMBERS = 65536

/** The node's place among all members in id order (the pid part of a (T, pid) timestamp). */
export function rankOf(self: NodeId, peers: readonly NodeId[]): number {
  const members = [self, ...peers].sort(compareNodeIds)
  if (members.length > MAX_MEMBERS) {
    throw new InvalidArgumentError(
      `a timestamp mutex packs ranks into 16 bits: at most ${MAX_MEMBERS} members, got ${members.length}`,
    )
  }
  return members.indexOf(self)
}

/**
 * The fencing token of an entry made with request timestamp (time, rank). Entries follow the
 * (T, pid) order of their requests, so packing the pair into one number keeps it increasing.
 */
export function fencingToken(time: number, rank: number): number {
  return time * MAX_MEMBERS + rank
}

/** Checks a per-node initial clock setting at construction. */
export function checkInitialClock(
  where: string,
  initialClock: number | Readonly<Record<string, number>> | undefined,
): void {
  if (initialClock === undefined) return
  const values =
    typeof initialClock === 'number'
      ? [initialClock]
      : typeof initialClock === 'object' && initialClock !== null
        ? Object.values(initialClock)
        : [Number.NaN]
  for (const v of values) {
    if (!isNonNegInt(v)) {
      throw new InvalidArgumentError(
        `${where}: initialClock must be an integer >= 0 (or a record of them by node id), got ${String(v)}`,
      )
    }
  }
}

/** The initial clock of `self`: a number for all, or a record by node id (0 when unlisted). */
export function initialClockOf(
  self: NodeId,
  initialClock: number | Readonly<Record<string, number>> | undefined,
): number {
  if (initialClock === undefined) return 0
  if (typeof initialClock === 'number') return initialClock
  return initialClock[String(self)] ?? 0
}

/** The Lamport clock of `self`, started at its initial clock (the `(T, pid)` stamps of its requests). */
export function nodeClock(
  self: NodeId,
  initialClock: number | Readonly<Record<string, number>> | undefined,
): LamportClock {
  return new LamportClock({ pid: self, start: initialClockOf(self, initialClock) })
}
