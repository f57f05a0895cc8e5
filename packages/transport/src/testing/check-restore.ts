/**
 * The `restore()` part of `checkSnapshots`: an instance fresh from the factory, restored from a
 * state's snapshot (with its storage and timers), gives the same effects and the same snapshots
 * as the instance that took it, on the same further inputs.
 */
import { canonicalKey } from '../canonical.js'
import type { Random } from '../random.js'
import { firstChanged, type TakenSnapshot } from './snapshot-copies.js'
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
    const copies = b.protocol.snapshotCopies === true
    const taken: Array<TakenSnapshot & { after: string }> = []
    for (let i = 0; i <= runs.steps; i++) {
      const sa = a.snapshotText()
      const sb = b.snapshotText()
      const after = done.length === 0 ? 'restored' : `then ${done.join(', ')}`
      if (sa !== sb) return `${after}: snapshot ${sa}\n  vs restored ${sb}`
      const changed = given()
      if (changed !== undefined) return `${after}: ${changed}`
      if (copies) {
        const snapshot = b.protocol.snapshot!()
        taken.push({ snapshot, text: canonicalKey(snapshot, 'snapshot'), after })
      }
      if (i === runs.steps) break
      const input = next(random, a)
      const ea = JSON.stringify(a.feed(input) ?? 'no such timer')
      const eb = JSON.stringify(b.feed(input) ?? 'no such timer')
      done.push(show(input))
      if (ea !== eb) return `then ${done.join(', ')}: ${ea}\n  vs restored ${eb}`
    }
    // Checked once the run is over (as along a walk), not after every step.
    const changed = firstChanged(taken)
    if (changed !== undefined)
      return `then ${done.join(', ')}: snapshotCopies, yet a snapshot the restored instance gave ${changed.taken.after} changed: ${changed.taken.text}\n  became ${changed.now}`
  }
  return undefined
}
