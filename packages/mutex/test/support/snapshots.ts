import type { NodeId, Protocol, ProtocolFactory } from '@sd/transport'

export { notPlain } from '../../../../test-support/snapshot-contract.js'

/** One node's snapshot after one handler ran. */
export interface Taken {
  node: NodeId
  step: string
  snapshot: unknown
}

/**
 * Wraps a factory so that every handler of every instance is followed by that instance's
 * snapshot, appended to `log` (the node's state after each step of the run).
 */
export function observed<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
  log: Taken[],
): ProtocolFactory<Msg, Req, Ev> {
  return (self) => {
    const p: Protocol<Msg, Req, Ev> = factory(self)
    const take = (step: string) => {
      if (p.snapshot === undefined) throw new Error(`${String(self)}: no snapshot()`)
      log.push({ node: self, step, snapshot: p.snapshot() })
    }
    return {
      snapshot: () => p.snapshot?.(),
      start(ctx) {
        p.start?.(ctx)
        take('start')
      },
      onMessage(from, msg, ctx) {
        p.onMessage(from, msg, ctx)
        take('message')
      },
      onTimer(key, ctx) {
        p.onTimer?.(key, ctx)
        take(`timer ${key}`)
      },
      onRequest(req, ctx) {
        p.onRequest?.(req, ctx)
        take('request')
      },
      onSignal(signal, ctx) {
        p.onSignal?.(signal, ctx)
        take('signal')
      },
    }
  }
}

/** JSON with every object's keys sorted: two equal values give the same text. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  })
}
