import { describe, expect, it } from 'vitest'
import { type Ctx, type NodeId, SimNetwork } from '../src/index.js'

type Gossip = { type: 'gossip'; origin: NodeId; hops: number }

/** Every node gossips a rumour to random peers, on a jittered timer: touches every random path. */
function gossip(self: NodeId) {
  let heard = false
  return {
    start(ctx: Ctx<Gossip, string>) {
      ctx.setTimer('jitter', ctx.random() * 20)
    },
    onTimer(_key: string, ctx: Ctx<Gossip, string>) {
      const peer = ctx.peers[Math.floor(ctx.random() * ctx.peers.length)]!
      ctx.send(peer, { type: 'gossip', origin: self, hops: 0 })
    },
    onMessage(_from: NodeId, msg: Gossip, ctx: Ctx<Gossip, string>) {
      if (!heard) ctx.emit(`heard from ${String(msg.origin)} at ${ctx.now().toFixed(3)}`)
      heard = true
      if (msg.hops < 3) ctx.broadcast({ ...msg, hops: msg.hops + 1 })
    },
  }
}

function run(seed: number | string): string {
  const net = new SimNetwork({
    seed,
    latency: { kind: 'exponential', mean: 5, min: 1 },
    loss: 0.1,
    duplicate: 0.05,
    fifo: false,
  })
  const ids = [1, 2, 3, 4, 5, 6]
  net.launch(ids, gossip)
  net.setClock(3, { offset: 12.5, drift: 2e-4 })
  net.at(8, () => net.partition([1, 2], [3, 4]))
  net.at(15, () => net.crash(5))
  net.at(30, () => net.heal())
  net.at(40, () => net.restart(5))
  net.run()
  return JSON.stringify(net.traceDocument())
}

describe('determinism', () => {
  it('the same seed gives a byte-identical trace; another seed a different one', () => {
    for (const seed of [1, 2, 42, 'abc']) {
      const first = run(seed)
      expect(run(seed)).toBe(first)
      expect(first.length).toBeGreaterThan(1000)
    }
    expect(run(1)).not.toBe(run(2))
    expect(run('abc')).not.toBe(run('abd'))
  })

  it('the trace is plain JSON with the documented envelope', () => {
    const doc = JSON.parse(run(7))
    expect(doc).toMatchObject({
      format: 'sd-trace',
      version: 1,
      seed: 7,
      nodes: [1, 2, 3, 4, 5, 6],
    })
    const types = new Set(doc.events.map((e: { type: string }) => e.type))
    for (const t of [
      'send',
      'deliver',
      'drop',
      'timer-set',
      'timer-fire',
      'emit',
      'start',
      'crash',
      'restart',
      'partition',
      'heal',
      'clock',
    ]) {
      expect(types, `trace has ${t}`).toContain(t)
    }
    const times = doc.events.map((e: { t: number }) => e.t)
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })
})
