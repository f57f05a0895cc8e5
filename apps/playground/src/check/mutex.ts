/** Check spec for the mutex package: Ricart-Agrawala, judged by happens-before. */
import { type MutexRequest, ricartAgrawala } from '@sd/mutex'
import type { Ctx, NodeId, Protocol, ProtocolFactory } from '@sd/transport'
import type { ExploreScenario, ExploreState } from '@sd/transport/explore'
import type { CheckSpec } from './spec.js'

/** A vector clock: node id (as a string) to the count of its events. */
export type Clock = Record<string, number>
/** A message with the sender's vector clock. */
export type Stamped<Msg> = { vc: Clock; msg: Msg }
/** An emitted event with the emitter's vector clock at that moment. */
export type WithClock<Ev> = { event: Ev; vc: Clock }

/**
 * Runs `factory` with a vector clock on every node: a send (a broadcast is one event) and an
 * emit are events; a delivery merges the sender's clock. Each emitted event carries the clock, so
 * an invariant can judge happens-before without a trace (the explorer runs without one), and does
 * not depend on the order in which the reduction interleaved independent events.
 */
export function withVectorClocks<Msg, Req, Ev>(
  factory: ProtocolFactory<Msg, Req, Ev>,
): ProtocolFactory<Stamped<Msg>, Req, WithClock<Ev>> {
  return (self) => {
    const inner = factory(self)
    const me = String(self)
    let vc: Clock = {}
    const tick = (): Clock => {
      vc = { ...vc, [me]: (vc[me] ?? 0) + 1 }
      return vc
    }
    const wrap = (ctx: Ctx<Stamped<Msg>, WithClock<Ev>>): Ctx<Msg, Ev> => ({
      self: ctx.self,
      get peers() {
        return ctx.peers
      },
      now: () => ctx.now(),
      send: (to, msg) => ctx.send(to, { vc: tick(), msg }),
      broadcast: (msg) => ctx.broadcast({ vc: tick(), msg }),
      setTimer: (key, ms) => ctx.setTimer(key, ms),
      cancelTimer: (key) => ctx.cancelTimer(key),
      random: () => ctx.random(),
      emit: (event) => ctx.emit({ event, vc: tick() }),
      storage: ctx.storage,
    })
    const protocol: Protocol<Stamped<Msg>, Req, WithClock<Ev>> = {
      onMessage(from, { vc: theirs, msg }, ctx) {
        const merged = { ...vc }
        for (const [k, v] of Object.entries(theirs)) merged[k] = Math.max(merged[k] ?? 0, v)
        vc = merged
        tick()
        inner.onMessage(from, msg, wrap(ctx))
      },
    }
    if (inner.start) protocol.start = (ctx) => inner.start!(wrap(ctx))
    if (inner.onTimer) protocol.onTimer = (key, ctx) => inner.onTimer!(key, wrap(ctx))
    if (inner.onRequest) protocol.onRequest = (req, ctx) => inner.onRequest!(req, wrap(ctx))
    if (inner.onSignal) protocol.onSignal = (signal, ctx) => inner.onSignal!(signal, wrap(ctx))
    return protocol
  }
}

/** a happened before b, or is b: every entry of a at most b's. */
export function atOrBefore(a: Clock, b: Clock): boolean {
  return Object.entries(a).every(([k, v]) => v <= (b[k] ?? 0))
}

type MutexEv = { type: string; token?: number }
interface Entry {
  node: NodeId
  token: number
  acquired: Clock
  released: Clock | undefined
}

/** Each node's critical sections, in its own order, with the clocks of entry and exit. */
export function entries(events: ExploreState['events']): Entry[] {
  const out: Entry[] = []
  const open = new Map<NodeId, Entry>()
  for (const { node, event } of events) {
    const { event: ev, vc } = event as WithClock<MutexEv>
    if (ev.type === 'acquired') {
      const entry = { node, token: ev.token ?? 0, acquired: vc, released: undefined }
      out.push(entry)
      open.set(node, entry)
    } else if (ev.type === 'released') {
      const entry = open.get(node)
      if (entry) entry.released = vc
      open.delete(node)
    }
  }
  return out
}

/**
 * Mutual exclusion by happens-before: of any two critical sections at different nodes, one left
 * before the other entered (its `released` is in the causal past of the other's `acquired`), and
 * the later one's fencing token is the larger. Two sections neither of which precedes the other
 * overlap in some run with the same causality, whatever order this one took.
 */
export function mutualExclusion(list: readonly Entry[]): string | undefined {
  for (const [i, a] of list.entries())
    for (const b of list.slice(i + 1)) {
      if (a.node === b.node) continue
      const aFirst = a.released !== undefined && atOrBefore(a.released, b.acquired)
      const bFirst = b.released !== undefined && atOrBefore(b.released, a.acquired)
      if (!aFirst && !bFirst)
        return `nodes ${String(a.node)} and ${String(b.node)} are in the critical section at once (neither left before the other entered)`
      const [first, next] = aFirst ? [a, b] : [b, a]
      if (next.token <= first.token)
        return `node ${String(next.node)} entered after node ${String(first.node)} with a token not larger (${next.token} after ${first.token})`
    }
  return undefined
}

const HOLD_MS = 1

/**
 * `n` nodes running `factory` (a mutex of the package's contract), each asking once at the start
 * and releasing HOLD_MS after it enters, judged by `mutualExclusion` and, at the end, liveness.
 */
export function mutexScenario(
  factory: ProtocolFactory<unknown, MutexRequest, unknown>,
  n: number,
): ExploreScenario {
  const nodes = Array.from({ length: n }, (_, i): NodeId => i + 1)
  return {
    setup(net) {
      net.onEmit((node, event, t) => {
        if ((event as WithClock<MutexEv>).event.type === 'acquired')
          net.request<MutexRequest>(node, { type: 'release' }, t + HOLD_MS)
      })
      net.launch(nodes, withVectorClocks(factory))
      for (const id of nodes) net.request<MutexRequest>(id, { type: 'acquire' })
    },
    invariant({ net, events }) {
      const list = entries(events)
      const broken = mutualExclusion(list)
      if (broken !== undefined || net.choices().length > 0) return broken
      const faulty = net.stats.dropped.loss > 0 || nodes.some((id) => net.isCrashed(id))
      if (faulty) return undefined
      for (const id of nodes) {
        const mine = list.filter((e) => e.node === id)
        if (mine.length !== 1 || mine[0]!.released === undefined)
          return `node ${String(id)} entered ${mine.length} time(s) and ${mine[0]?.released ? 'left' : 'did not leave'}, though it asked once and nothing failed`
      }
      return undefined
    },
  }
}

export const ricartAgrawalaCheck: CheckSpec = {
  scenario: 'mutex-ricart-agrawala',
  what: `every node asks once at the start and releases ${HOLD_MS} ms after it enters, timers and requests in any order (a section may last any time, so peers' requests arrive while it is held); of any two critical sections one ends before the other begins (happens-before, from vector clocks carried on the messages) and the later has the larger fencing token; at the end every node has entered and left once (unless a message was lost or a node crashed: Ricart-Agrawala needs reliable links and live peers, so then only safety is claimed)`,
  defaultN: 3,
  minN: 2,
  maxN: 3,
  defaults: { depth: 80, timers: 'any-order' },
  build(n) {
    return mutexScenario(ricartAgrawala() as ProtocolFactory<unknown, MutexRequest, unknown>, n)
  },
}
