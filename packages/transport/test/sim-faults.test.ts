import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { type NodeId, SimNetwork, type TraceEvent } from '../src/index.js'
import { traceOfType } from '../src/testing/index.js'

const seeds = seedList(30)

/** Sends `count` numbered messages a -> b and returns what b received, in order. */
function blast(net: SimNetwork, count: number, from: NodeId = 'a', to: NodeId = 'b'): number[] {
  const got: number[] = []
  net.transport(to).onMessage((_f, m) => got.push(m as number))
  const tx = net.transport(from)
  for (let i = 0; i < count; i++) tx.send(to, i)
  net.run()
  return got
}

function network(seed: number, options: ConstructorParameters<typeof SimNetwork>[0] = {}) {
  const net = new SimNetwork({ seed, ...options })
  net.addNode('a')
  net.addNode('b')
  return net
}

describe('loss', () => {
  it('drops about the configured fraction, and accounts for every message', () => {
    let sent = 0
    let lost = 0
    forSeeds(seeds, (seed) => {
      const net = network(seed, { loss: 0.2 })
      const got = blast(net, 1000)
      const stats = net.stats
      expect(stats.delivered + stats.dropped.loss).toBe(1000)
      expect(got.length).toBe(stats.delivered)
      expect(net.trace.filter((e) => e.type === 'drop' && e.reason === 'loss').length).toBe(
        stats.dropped.loss,
      )
      // what arrives is still in order and without duplicates
      expect(got).toEqual([...got].sort((x, y) => x - y))
      expect(new Set(got).size).toBe(got.length)
      sent += 1000
      lost += stats.dropped.loss
    })
    expect(lost / sent).toBeGreaterThan(0.18)
    expect(lost / sent).toBeLessThan(0.22)
  })

  it('loses nothing with loss 0 and everything with loss 1', () => {
    forSeeds(seeds, (seed) => {
      expect(blast(network(seed), 200)).toHaveLength(200)
      expect(blast(network(seed, { loss: 1 }), 200)).toHaveLength(0)
    })
  })
})

describe('duplication', () => {
  it('delivers a duplicated message exactly twice, at about the configured rate', () => {
    let total = 0
    let dups = 0
    forSeeds(seeds, (seed) => {
      const net = network(seed, { duplicate: 0.1 })
      const got = blast(net, 1000)
      const duplicated = new Set(traceOfType(net.trace, 'duplicate').map((e) => e.id))
      const deliveries = new Map<number, number>()
      for (const e of net.trace)
        if (e.type === 'deliver') deliveries.set(e.id, (deliveries.get(e.id) ?? 0) + 1)
      for (const [id, count] of deliveries) expect(count).toBe(duplicated.has(id) ? 2 : 1)
      expect(got.length).toBe(1000 + duplicated.size)
      total += 1000
      dups += duplicated.size
    })
    expect(dups / total).toBeGreaterThan(0.08)
    expect(dups / total).toBeLessThan(0.12)
  })
})

describe('ordering', () => {
  const latency = { kind: 'uniform', min: 1, max: 50 } as const

  it('keeps send order on FIFO links despite random latency', () => {
    forSeeds(seeds, (seed) => {
      expect(blast(network(seed, { latency, fifo: true }), 300)).toEqual([...Array(300).keys()])
    })
  })

  it('reorders on non-FIFO links, but still delivers everything once', () => {
    let reordered = 0
    forSeeds(seeds, (seed) => {
      const got = blast(network(seed, { latency, fifo: false }), 300)
      expect([...got].sort((x, y) => x - y)).toEqual([...Array(300).keys()])
      if (got.some((v, i) => i > 0 && v < got[i - 1]!)) reordered++
    })
    expect(reordered).toBe(seeds.length)
  })

  it('can be set per link: one FIFO link, one reordering link', () => {
    forSeeds(seeds, (seed) => {
      const net = new SimNetwork({ seed, latency, fifo: false })
      for (const id of ['a', 'b', 'c']) net.addNode(id)
      net.setLink('a', 'b', { fifo: true }, { oneWay: true })
      const atB: number[] = []
      const atC: number[] = []
      net.transport('b').onMessage((_f, m) => atB.push(m as number))
      net.transport('c').onMessage((_f, m) => atC.push(m as number))
      for (let i = 0; i < 200; i++) {
        net.transport('a').send('b', i)
        net.transport('a').send('c', i)
      }
      net.run()
      expect(atB).toEqual([...Array(200).keys()])
      expect(atC).not.toEqual([...Array(200).keys()])
    })
  })
})

describe('latency models', () => {
  const arrivals = (net: SimNetwork) =>
    net.trace
      .filter((e): e is Extract<TraceEvent, { type: 'deliver' }> => e.type === 'deliver')
      .map((e) => e.t - e.sentAt)

  it('fixed, uniform, exponential and custom latencies have the documented shape', () => {
    forSeeds(seeds, (seed) => {
      const fixed = network(seed, { latency: 7 })
      blast(fixed, 50)
      expect(new Set(arrivals(fixed))).toEqual(new Set([7]))

      const uniform = network(seed, { latency: { kind: 'uniform', min: 10, max: 20 }, fifo: false })
      blast(uniform, 500)
      const u = arrivals(uniform)
      expect(Math.min(...u)).toBeGreaterThanOrEqual(10)
      expect(Math.max(...u)).toBeLessThanOrEqual(20)
      expect(u.reduce((s, x) => s + x, 0) / u.length).toBeCloseTo(15, 0)

      const exp = network(seed, { latency: { kind: 'exponential', mean: 10, min: 2 }, fifo: false })
      blast(exp, 2000)
      const x = arrivals(exp)
      expect(Math.min(...x)).toBeGreaterThanOrEqual(2)
      const mean = x.reduce((s, v) => s + v, 0) / x.length
      expect(mean).toBeGreaterThan(11)
      expect(mean).toBeLessThan(13)

      const custom = network(seed, { latency: (_r, from) => (from === 'a' ? 3 : 9) })
      blast(custom, 10)
      expect(new Set(arrivals(custom))).toEqual(new Set([3]))
    })
  })
})

describe('partitions', () => {
  it('drops messages across groups, keeps them within, and heals', () => {
    forSeeds(seeds, (seed) => {
      const net = new SimNetwork({ seed, latency: { kind: 'uniform', min: 1, max: 5 } })
      for (const id of [1, 2, 3, 4]) net.addNode(id)
      const inbox = new Map<NodeId, unknown[]>()
      for (const id of [1, 2, 3, 4]) {
        inbox.set(id, [])
        net.transport(id).onMessage((_f, m) => inbox.get(id)!.push(m))
      }
      net.partition([1, 2]) // 3 and 4 form the other side
      net.transport(1).send(2, 'same side')
      net.transport(1).send(3, 'across')
      net.transport(4).send(3, 'other side')
      net.transport(4).send(1, 'across back')
      net.run()
      expect(inbox.get(2)).toEqual(['same side'])
      expect(inbox.get(3)).toEqual(['other side'])
      expect(inbox.get(1)).toEqual([])
      expect(net.stats.dropped.partition).toBe(2)
      net.heal()
      net.transport(1).send(3, 'healed')
      net.run()
      expect(inbox.get(3)).toEqual(['other side', 'healed'])
    })
  })

  it('judges a message when it is sent: what was in flight still arrives', () => {
    const net = network(1, { latency: 10 })
    const got: unknown[] = []
    net.transport('b').onMessage((_f, m) => got.push(m))
    net.transport('a').send('b', 'in flight')
    net.runFor(5)
    net.partition(['a'], ['b'])
    net.transport('a').send('b', 'blocked')
    net.run()
    expect(got).toEqual(['in flight'])
  })

  it('rejects a node listed in two groups', () => {
    const net = network(1)
    expect(() => net.partition(['a'], ['a', 'b'])).toThrow(/two groups/)
  })
})
