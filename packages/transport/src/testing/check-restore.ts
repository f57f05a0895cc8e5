/**
 * The `restore()` part of `checkSnapshots`: an instance fresh from the factory, restored from a
 * state's snapshot (with its storage and timers), gives the same effects and the same snapshots
 * as the instance that took it, on the same further inputs.
 */
import { canonicalKey } from '../canonical.js'
import type { Random } from '../random.js'
import type { SnapshotHarness, SnapshotInput } from './snapshot-harness.js'

/** Where a restored instance and its original split: undefined when they never do. */
export function restoredSplit<Msg, Req>(
  original: () => SnapshotHarness<Msg, Req, unknown>,
  empty: () => SnapshotHarness<Msg, Req, unknown>,
  next: (random: Random, at: SnapshotHarness<Msg, Req, unknown>) => SnapshotInput<Msg, Req>,
  random: Random,
  runs: { continuations: number; steps: number; seed: string },
  show: (input: SnapshotInput<Msg, Req>) => string,
): string | undefined {
  for (let c = 0; c < runs.continuations; c++) {
    const a = original()
    const b = empty()
    const restored = b.restoreFrom(a)
    // Promised to only read it: the snapshot given must not change however `b` runs on.
    const given = () =>
      b.protocol.restoreCopies === true &&
      canonicalKey(restored.given, 'snapshot') !== restored.text
        ? `restoreCopies, yet what restore() was given changed (it kept part of it): ${restored.text}\n  became ${canonicalKey(restored.given, 'snapshot')}`
        : undefined
    a.reseed(`restore/${runs.seed}/${c}`)
    b.reseed(`restore/${runs.seed}/${c}`)
    const done: string[] = []
    // With `snapshotCopies`, the restored instance's snapshots must not change as it runs on either.
    const taken: Array<{ snapshot: unknown; text: string; after: string }> = []
    for (let i = 0; i <= runs.steps; i++) {
      const sa = a.snapshotText()
      const sb = b.snapshotText()
      const after = done.length === 0 ? 'restored' : `then ${done.join(', ')}`
      if (sa !== sb) return `${after}: snapshot ${sa}\n  vs restored ${sb}`
      const changed = given()
      if (changed !== undefined) return `${after}: ${changed}`
      if (b.protocol.snapshotCopies === true) {
        const snapshot = b.protocol.snapshot!()
        taken.push({ snapshot, text: canonicalKey(snapshot, 'snapshot'), after })
        for (const t of taken)
          if (canonicalKey(t.snapshot, 'snapshot') !== t.text)
            return `${after}: snapshotCopies, yet a snapshot the restored instance gave ${t.after} changed: ${t.text}\n  became ${canonicalKey(t.snapshot, 'snapshot')}`
      }
      if (i === runs.steps) break
      const input = next(random, a)
      const ea = JSON.stringify(a.feed(input) ?? 'no such timer')
      const eb = JSON.stringify(b.feed(input) ?? 'no such timer')
      done.push(show(input))
      if (ea !== eb) return `then ${done.join(', ')}: ${ea}\n  vs restored ${eb}`
    }
  }
  return undefined
}
