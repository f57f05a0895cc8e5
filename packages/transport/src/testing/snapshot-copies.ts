/**
 * The `snapshotCopies` promise, checked: a snapshot once taken reads as it did when taken, however
 * its instance ran on since. Shared by the walk check and the restore check of `checkSnapshots`.
 */
import { canonicalKey } from '../canonical.js'

/** A snapshot object as a protocol returned it, and its canonical text at that time. */
export interface TakenSnapshot {
  snapshot: unknown
  text: string
}

/** The first of `taken` that reads differently now, with what it reads; undefined if none does. */
export function firstChanged<T extends TakenSnapshot>(
  taken: readonly T[],
): { taken: T; now: string } | undefined {
  for (const t of taken) {
    const now = canonicalKey(t.snapshot, 'snapshot')
    if (now !== t.text) return { taken: t, now }
  }
  return undefined
}
