import { type ComposedMessage, compose, type NodeId, type Protocol } from '../src/index.js'

/**
 * Two children that deliberately collide: both send `{ type: 'hello' }` and both set a timer
 * named `tick`. Composed, neither may see the other's messages or timers.
 */

type Hello = { type: 'hello' } | { type: 'ack' }
export type RollEvent =
  | { type: 'heard'; from: NodeId }
  | { type: 'complete' }
  | { type: 'tick'; who: 'roll' }
/** Greets every peer at start; once it has heard from all of them, says so. */
export function rollCall(): Protocol<Hello, never, RollEvent> {
  const heard = new Set<NodeId>()
  return {
    start(ctx) {
      ctx.broadcast({ type: 'hello' })
      ctx.setTimer('tick', 1)
      if (ctx.peers.length === 0) ctx.emit({ type: 'complete' })
    },
    onMessage(from, msg, ctx) {
      if (msg.type !== 'hello') throw new Error(`roll call got ${JSON.stringify(msg)}`)
      if (heard.has(from)) return
      heard.add(from)
      ctx.emit({ type: 'heard', from })
      if (heard.size === ctx.peers.length) ctx.emit({ type: 'complete' })
    },
    onTimer(key, ctx) {
      if (key !== 'tick') throw new Error(`roll call got timer ${key}`)
      ctx.emit({ type: 'tick', who: 'roll' })
    },
  }
}

export type TallyEvent =
  | { type: 'counted'; acks: number; runs: number }
  | { type: 'tick'; who: 'tally' }
/**
 * On `count`, greets every peer with the same `hello` as the roll call and counts the acks; keeps
 * how many counts it finished in stable storage.
 */
export function tally(): Protocol<Hello, { type: 'count' }, TallyEvent> {
  const acks = new Set<NodeId>()
  return {
    onRequest(_req, ctx) {
      ctx.broadcast({ type: 'hello' })
      ctx.setTimer('tick', 2)
    },
    onMessage(from, msg, ctx) {
      if (msg.type === 'hello') ctx.send(from, { type: 'ack' })
      else {
        acks.add(from)
        if (acks.size === ctx.peers.length) {
          const runs = ((ctx.storage.get('runs') as number | undefined) ?? 0) + 1
          ctx.storage.set('runs', runs)
          ctx.emit({ type: 'counted', acks: acks.size, runs })
        }
      }
    },
    onTimer(key, ctx) {
      if (key !== 'tick') throw new Error(`tally got timer ${key}`)
      ctx.emit({ type: 'tick', who: 'tally' })
    },
  }
}

/** The roll call's `complete` starts a count: wired, in the same step. */
export const rollThenTally = () =>
  compose(
    { roll: rollCall(), tally: tally() },
    {
      wiring: [
        {
          from: 'roll',
          to: 'tally',
          map: (ev) => (ev.type === 'complete' ? { type: 'count' } : undefined),
        },
      ],
    },
  )

export type RollThenTallyMessage = ComposedMessage<{
  roll: ReturnType<typeof rollCall>
  tally: ReturnType<typeof tally>
}>

/** The events a node emitted, as sorted JSON lines: a multiset that ignores arrival order. */
export function eventMultiset(events: readonly unknown[]): string[] {
  return events.map((e) => JSON.stringify(e)).sort()
}
