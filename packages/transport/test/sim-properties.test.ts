import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { type Ctx, createRandom, type NodeId, SimNetwork } from '../src/index.js'

const seeds = seedList(50)

type Beat = { type: 'beat'; from: NodeId }

/** Every node broadcasts a heartbeat every 10 ms of local time and logs what it hears. */
function heartbeats(
  log: Array<{ node: NodeId; t: number; what: 'tick' | 'heard' }>,
  clockOf: () => number,
) {
  return (self: NodeId) => ({
    start(ctx: Ctx<Beat>) {
      ctx.setTimer('beat', 10)
    },
    onTimer(_key: string, ctx: Ctx<Beat>) {
      log.push({ node: self, t: clockOf(), what: 'tick' })
      ctx.broadcast({ type: 'beat', from: self })
      ctx.setTimer('beat', 10)
    },
    onMessage(_from: NodeId, _msg: Beat) {
      log.push({ node: self, t: clockOf(), what: 'heard' })
    },
  })
}

describe('crashes over many seeds', () => {
  it('a node is silent while down (no timer, no delivery, no send) and works again after restart', () => {
    forSeeds(seeds, (seed) => {
      const rand = createRandom(`plan/${seed}`)
      const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 8 } })
      const log: Array<{ node: NodeId; t: number; what: 'tick' | 'heard' }> = []
      net.launch(
        [1, 2, 3, 4],
        heartbeats(log, () => net.now),
      )
      const victim = rand.int(1, 4)
      const down = rand.int(5, 100)
      const up = down + rand.int(1, 100)
      net.at(down, () => net.crash(victim))
      net.at(up, () => net.restart(victim))
      net.run({ until: up + 100 })
      const whileDown = log.filter((e) => e.node === victim && e.t > down && e.t < up)
      expect(whileDown).toEqual([])
      const sentWhileDown = net.trace.filter(
        (e) => e.type === 'send' && e.from === victim && e.t > down && e.t < up,
      )
      expect(sentWhileDown).toEqual([])
      expect(log.some((e) => e.node === victim && e.what === 'tick' && e.t > up)).toBe(true)
      const dropped = net.trace.filter((e) => e.type === 'drop' && e.reason === 'receiver-crashed')
      expect(dropped.length).toBe(net.stats.dropped['receiver-crashed'])
      for (const d of dropped) expect(d.t >= down && d.t <= up).toBe(true)
    })
  })
})

describe('clock drift over many seeds', () => {
  it('every node reads offset + (1 + drift) * t, and its timers fire every period / (1 + drift)', () => {
    forSeeds(seeds, (seed) => {
      const rand = createRandom(`clocks/${seed}`)
      const net = new SimNetwork({ seed })
      const settings = new Map<NodeId, { offset: number; drift: number }>()
      const ticks = new Map<NodeId, Array<{ t: number; local: number }>>()
      const ids = [1, 2, 3]
      net.launch(ids, (self) => ({
        start: (ctx: Ctx<never>) => ctx.setTimer('t', 50),
        onMessage() {},
        onTimer(_k: string, ctx: Ctx<never>) {
          ticks.get(self)!.push({ t: net.now, local: ctx.now() })
          ctx.setTimer('t', 50)
        },
      }))
      for (const id of ids) {
        const s = { offset: (rand.next() - 0.5) * 1000, drift: (rand.next() - 0.5) * 0.02 }
        settings.set(id, s)
        ticks.set(id, [])
        net.setClock(id, s)
      }
      net.run({ until: 2000 })
      for (const id of ids) {
        const { offset, drift } = settings.get(id)!
        const seen = ticks.get(id)!
        expect(seen.length).toBe(Math.floor(2000 / (50 / (1 + drift))))
        for (const { t, local } of seen) expect(local).toBeCloseTo(offset + t * (1 + drift), 6)
        for (let i = 1; i < seen.length; i++)
          expect(seen[i]!.local - seen[i - 1]!.local).toBeCloseTo(50, 6)
      }
    })
  })
})
