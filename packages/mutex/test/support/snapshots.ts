import type { NodeId, Protocol, ProtocolFactory } from '@sd/transport'

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

/** Why `value` is not plain JSON data (undefined when it is): names the path of the culprit. */
export function notPlain(value: unknown, path = '$'): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path}: ${value}`
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return `${path}[${i}]: a hole`
      const why = notPlain(value[i], `${path}[${i}]`)
      if (why !== undefined) return why
    }
    return undefined
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, v] of Object.entries(value)) {
      const why = notPlain(v, `${path}.${key}`)
      if (why !== undefined) return why
    }
    return undefined
  }
  const kind = typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value
  return `${path}: ${kind}`
}

/** JSON with every object's keys sorted: two equal values give the same text. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  })
}
