import { afterEach, describe, expect, it } from 'vitest'
import type { NodeId } from '../ids.js'
import type { Protocol } from '../protocol.js'
import { type ProtocolHandle, runProtocol } from '../runtime/index.js'
import { SimNetwork } from '../sim/index.js'
import { pollUntil } from '../testing/index.js'
import { createUdpTransport, type UdpTransport } from './index.js'

type Msg = { type: 'token'; hop: number } | { type: 'done' }
type Ev = { hop: number } | { finished: true }

/** A token goes round the ring `laps` times, each node holding it 1 ms (a timer) before passing it on. */
function tokenRing(self: NodeId, laps: number): Protocol<Msg, never, Ev> {
  let held: number | undefined
  return {
    start(ctx) {
      if (self === 1) {
        held = 0
        ctx.setTimer('pass', 1)
      }
    },
    onMessage(_from, msg, ctx) {
      if (msg.type === 'done') return ctx.emit({ finished: true })
      ctx.emit({ hop: msg.hop })
      if (msg.hop >= laps * (ctx.peers.length + 1)) return ctx.broadcast({ type: 'done' })
      held = msg.hop
      ctx.setTimer('pass', 1)
    },
    onTimer(_key, ctx) {
      const ring = [self, ...ctx.peers].sort((a, b) => Number(a) - Number(b))
      const next = ring[(ring.indexOf(self) + 1) % ring.length]!
      ctx.send(next, { type: 'token', hop: (held ?? 0) + 1 })
    },
  }
}

const ids = [1, 2, 3, 4]
const open: UdpTransport<Msg>[] = []
const handles: ProtocolHandle<never, Ev>[] = []
afterEach(async () => {
  for (const h of handles.splice(0)) h.stop()
  await Promise.all(open.splice(0).map((t) => t.close({ graceful: false })))
})

describe('the runtime over UDP', () => {
  it('runs a protocol exactly as in the simulator (same events at every node)', async () => {
    const sim = new SimNetwork({ seed: 1, latency: { kind: 'uniform', min: 1, max: 5 } })
    const simEvents = new Map<NodeId, Ev[]>(ids.map((id) => [id, []]))
    sim.onEmit((node, event) => simEvents.get(node)!.push(event as Ev))
    sim.launch(ids, (self) => tokenRing(self, 3))
    sim.run()

    const transports = await Promise.all(
      ids.map((id) => createUdpTransport<Msg>({ id, key: 'runtime-test-key-0123' })),
    )
    open.push(...transports)
    for (const t of transports)
      for (const o of transports)
        if (o !== t) t.setPeer(o.self, { host: '127.0.0.1', port: o.address.port })
    const udpEvents = new Map<NodeId, Ev[]>(ids.map((id) => [id, []]))
    for (const t of transports) {
      handles.push(
        runProtocol(tokenRing(t.self, 3), {
          transport: t,
          members: ids,
          onEvent: (e) => udpEvents.get(t.self)!.push(e),
          onError: (e) => {
            throw e
          },
        }),
      )
    }
    const total = (m: Map<NodeId, Ev[]>) => [...m.values()].reduce((n, evs) => n + evs.length, 0)
    await pollUntil(
      () => total(udpEvents) >= total(simEvents),
      'the token to finish its laps',
      10_000,
    )
    await new Promise((r) => setTimeout(r, 20)) // nothing more may come
    expect(udpEvents).toEqual(simEvents)
    expect(simEvents.get(2)).toEqual([{ hop: 1 }, { hop: 5 }, { hop: 9 }, { finished: true }])
    expect(simEvents.get(1)).toEqual([{ hop: 4 }, { hop: 8 }, { hop: 12 }])
  })
})
