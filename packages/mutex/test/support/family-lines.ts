/**
 * Judging the lock-family workers (family-worker.ts) from their lines: each entry as a holding
 * from its ENTER to its ACT (the span in which the process used the resource), every process on
 * one time base (CLOCK_MONOTONIC), fed to the all-nodes checker.
 */
import type { TimedEvent } from '@sd/transport'
import type { Worker } from '../../../../test-support/processes.js'

export interface Entry {
  node: string
  token: number
  granted: 'exclusive' | 'shared' | 'permits'
  take: number
  of: number
  enter: bigint
  /** When it acted (assertHeld() passed); undefined when it did not. */
  act?: bigint
  /** When assertHeld() threw, and the error's code and reason. */
  lost?: { at: bigint; code: string; reason: string }
}

/** Every entry of a worker, in order (the last one may have neither ACT nor LOST: killed). */
export function entriesOf(w: Worker): Entry[] {
  const entries: Entry[] = []
  for (const line of w.lines) {
    const [word, ns, token, ...rest] = line.split(' ')
    if (word === 'ENTER') {
      const [granted, take, of] = rest
      entries.push({
        node: w.id,
        token: Number(token),
        granted: granted as Entry['granted'],
        take: Number(take),
        of: Number(of),
        enter: BigInt(ns!),
      })
      continue
    }
    const last = entries.at(-1)
    if (last === undefined || last.token !== Number(token)) continue
    if (word === 'ACT') last.act = BigInt(ns!)
    else if (word === 'LOST') last.lost = { at: BigInt(ns!), code: rest[0]!, reason: rest[1]! }
  }
  return entries
}

/** Where a holding ends: its ACT, or its ENTER when it never acted. */
export const endOf = (e: Entry) => e.act ?? e.enter

/**
 * The holdings as `acquired` / `released` events for `checkMutualExclusion`, in ms from `base`:
 * acquired at ENTER, released at ACT (at ENTER when it did not act).
 */
export function holdingEvents(entries: readonly Entry[], base: bigint): TimedEvent[] {
  const ms = (ns: bigint) => Number(ns - base) / 1e6
  return entries.flatMap((e) => {
    const kind =
      e.granted === 'permits'
        ? { permits: { take: e.take, of: e.of } }
        : e.granted === 'shared'
          ? { mode: 'shared' }
          : {}
    const held = { resource: 'family', token: e.token, ...kind }
    return [
      { node: e.node, t: ms(e.enter), event: { type: 'acquired', ...held } },
      { node: e.node, t: ms(endOf(e)), event: { type: 'released', ...held } },
    ]
  })
}

/**
 * The most permits (or holders, with `weight` 1) out at one instant among `entries`: a sweep
 * where an end at the same instant as a start comes first.
 */
export function mostAtOnce(entries: readonly Entry[], weight: (e: Entry) => number): number {
  const points = entries
    .flatMap((e) => [
      { at: e.enter, delta: weight(e) },
      { at: endOf(e), delta: -weight(e) },
    ])
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.delta - b.delta))
  let out = 0
  let most = 0
  for (const p of points) {
    out += p.delta
    most = Math.max(most, out)
  }
  return most
}
