/**
 * A scenario's own state beside its network (what its `onEmit` collects, the releases it plans),
 * saved and put back with a simulator checkpoint: the lab rewinds a scenario's run from its
 * nearest checkpoint only when the scenario keeps its side state here (`keepSideState`), since a
 * checkpoint alone would leave that state as it was at the live end. `save` gives plain data (a
 * copy); `restore` takes what `save` gave, refuses anything else, and puts it back in place (the
 * scenario's closures keep their objects).
 */
import { InvalidArgumentError, type SimNetwork } from '@sd/transport'

export interface SideState {
  save(): unknown
  restore(saved: unknown): void
}

const kept = new WeakMap<SimNetwork, SideState>()

/** Declares `net`'s side state; a scenario whose callbacks keep none passes `NO_SIDE_STATE`. */
export function keepSideState(net: SimNetwork, state: SideState): void {
  kept.set(net, state)
}

/** The side state `net`'s scenario declared, or undefined (then it cannot be rewound). */
export function sideStateOf(net: SimNetwork): SideState | undefined {
  return kept.get(net)
}

export const NO_SIDE_STATE: SideState = {
  save: () => null,
  restore(saved) {
    if (saved !== null) throw new InvalidArgumentError('side state: expected none (null)')
  },
}

/**
 * Lists that only grow (events collected for the end-of-run verdict): saved as their lengths,
 * put back by cutting what came after.
 */
export function appendOnly(lists: readonly unknown[][]): SideState {
  return {
    save: () => lists.map((l) => l.length),
    restore(saved) {
      const lengths = savedLengths(saved, lists.length)
      lengths.forEach((n, i) => {
        const list = lists[i]!
        if (n > list.length)
          throw new InvalidArgumentError(
            `side state: list ${i} has ${list.length} entries, not ${n}`,
          )
        list.length = n
      })
    },
  }
}

function savedLengths(saved: unknown, count: number): number[] {
  if (
    !Array.isArray(saved) ||
    saved.length !== count ||
    !saved.every((n) => Number.isSafeInteger(n) && n >= 0)
  )
    throw new InvalidArgumentError(`side state: expected ${count} list lengths`)
  return saved as number[]
}
