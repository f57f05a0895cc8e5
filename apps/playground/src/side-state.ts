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
  /** Throws what `restore` would throw on `saved`, changing nothing (so parts restore together). */
  check?(saved: unknown): void
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
  return cutBack(
    'list',
    () => lists.map((l) => l.length),
    (i, n) => {
      lists[i]!.length = n
    },
  )
}

/**
 * Maps that only gain entries (labels keyed by trace entry, set once each step): saved as their
 * sizes, put back by deleting the entries added after (a Map iterates in insertion order).
 */
export function addOnlyMaps(maps: readonly Map<unknown, unknown>[]): SideState {
  return cutBack(
    'map',
    () => maps.map((m) => m.size),
    (i, n) => {
      const map = maps[i]!
      let k = 0
      for (const key of [...map.keys()]) if (k++ >= n) map.delete(key)
    },
  )
}

/** Collections saved as their sizes and put back by cutting each to its saved size. */
function cutBack(
  kind: string,
  sizes: () => number[],
  cut: (i: number, size: number) => void,
): SideState {
  const check = (saved: unknown) => {
    const now = sizes()
    if (
      !Array.isArray(saved) ||
      saved.length !== now.length ||
      !saved.every((n) => Number.isSafeInteger(n) && n >= 0)
    )
      throw new InvalidArgumentError(`side state: expected ${now.length} ${kind} lengths`)
    saved.forEach((n: number, i) => {
      if (n > now[i]!)
        throw new InvalidArgumentError(`side state: ${kind} ${i} has ${now[i]} entries, not ${n}`)
    })
    return saved as number[]
  }
  return {
    save: sizes,
    check,
    restore(saved) {
      check(saved).forEach((n, i) => {
        cut(i, n)
      })
    },
  }
}

/** Several side states saved and put back as one (a list, in their order): all checked first. */
export function together(parts: readonly SideState[]): SideState {
  const check = (saved: unknown): unknown[] => {
    if (!Array.isArray(saved) || saved.length !== parts.length)
      throw new InvalidArgumentError(`side state: expected ${parts.length} parts`)
    parts.forEach((p, i) => {
      p.check?.(saved[i])
    })
    return saved
  }
  return {
    save: () => parts.map((p) => p.save()),
    check,
    restore(saved) {
      check(saved).forEach((part, i) => {
        parts[i]!.restore(part)
      })
    },
  }
}

/** Whether `v` is a list of [name, value] pairs whose values `value` accepts (a Map saved). */
export function isNamedPairs(v: unknown, value: (x: unknown) => boolean): boolean {
  return (
    Array.isArray(v) &&
    v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && value(p[1]))
  )
}
