/** Workloads, measures and a broken variant for the readers-writers tests of Ricart-Agrawala. */
import type { NodeId, Protocol, ProtocolFactory, Random } from '@sd/transport'
import type { TimedEvent } from '../../src/check.js'
import type { LockMode } from '../../src/contract.js'
import { type Ask, namedIds } from './harness.js'

/**
 * 2 to 5 nodes `p1`…, asking `perNode` times each on average within `spanMs`, holding 1 to 25 ms,
 * each acquire shared with probability `sharedShare`.
 */
export function mixedWorkload(random: Random, perNode: number, spanMs: number, sharedShare = 0.5) {
  const ids = namedIds(random.int(2, 5))
  const asks: Ask[] = Array.from({ length: perNode * ids.length }, () => {
    const node = ids[random.int(0, ids.length - 1)]!
    const at = random.int(0, spanMs)
    const hold = random.int(1, 25)
    const mode: LockMode = random.next() < sharedShare ? 'shared' : 'exclusive'
    return { node, at, hold, mode }
  })
  return { ids, asks }
}

/** The most entries held at once in a run (entries of one resource, from `acquired` to `released`). */
export function mostHeldAtOnce(events: readonly TimedEvent<{ type: string }>[]): number {
  let now = 0
  let most = 0
  for (const { event } of events) {
    if (event.type === 'acquired') most = Math.max(most, ++now)
    else if (event.type === 'released') now--
  }
  return most
}

/** Whether a Ricart-Agrawala snapshot shows the node wanting or holding `resource` in shared mode. */
function sharedTurn(snapshot: unknown, resource: string): boolean {
  const resources = (snapshot as { resources?: Array<[string, { state: string; mode: string }]> })
    ?.resources
  const r = resources?.find(([name]) => name === resource)?.[1]
  return r !== undefined && r.state !== 'RELEASED' && r.mode === 'shared'
}

/**
 * The broken variant the properties must catch: a node whose own turn is shared takes every
 * peer's request for a shared one, so a reader answers a writer OK at once instead of deferring
 * it (while it holds, or wants with an earlier timestamp). Built around the real protocol, which
 * it reads through `snapshot()`.
 */
export function readersIgnoreWriters<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
): ProtocolFactory<Msg, Req, Ev> {
  return (self: NodeId) => {
    const inner: Protocol<Msg, Req, Ev> = factory(self)
    return {
      ...inner,
      onMessage(from, msg, ctx) {
        const m = msg as { type?: unknown; resource?: unknown }
        const asShared =
          m.type === 'request' &&
          typeof m.resource === 'string' &&
          sharedTurn(inner.snapshot?.(), m.resource)
        inner.onMessage(from, asShared ? ({ ...m, mode: 'shared' } as Msg) : msg, ctx)
      },
    }
  }
}
