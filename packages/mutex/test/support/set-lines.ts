/**
 * Judging the acquireAll workers (acquire-all-worker.ts) from their lines: each entry holds a set
 * of resources from its ENTER to its ACT, every process on one time base (CLOCK_MONOTONIC), fed
 * to the all-nodes checker resource by resource.
 */
import type { TimedEvent } from '@sd/transport'
import type { Worker } from '../../../../test-support/processes.js'

export interface SetEntry {
  node: string
  /** Each resource taken, with its fencing token. */
  tokens: Record<string, number>
  enter: bigint
  /** When it acted (every handle still held); undefined when it did not. */
  act?: bigint
}

/** Every entry of a worker, in order (the last one may have no ACT: killed). */
export function setEntriesOf(w: Worker): SetEntry[] {
  const entries: SetEntry[] = []
  for (const line of w.lines) {
    const [word, ns, held] = line.split(' ')
    if (word === 'ENTER') {
      const pairs = held!.split(',').map((p) => p.split(':'))
      const tokens = Object.fromEntries(pairs.map(([r, t]) => [r!, Number(t)]))
      entries.push({ node: w.id, tokens, enter: BigInt(ns!) })
    } else if (word === 'ACT' && entries.length > 0) entries.at(-1)!.act = BigInt(ns!)
  }
  return entries
}

/**
 * The holdings as exclusive `acquired` / `released` events, one pair per resource of each entry,
 * in ms from `base`: acquired at ENTER, released at ACT (at ENTER when it did not act).
 */
export function setHoldingEvents(entries: readonly SetEntry[], base: bigint): TimedEvent[] {
  const ms = (ns: bigint) => Number(ns - base) / 1e6
  return entries.flatMap((e) =>
    Object.entries(e.tokens).flatMap(([resource, token]) => [
      { node: e.node, t: ms(e.enter), event: { type: 'acquired', resource, token } },
      { node: e.node, t: ms(e.act ?? e.enter), event: { type: 'released', resource, token } },
    ]),
  )
}
