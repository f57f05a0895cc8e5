import { describe, expect, it } from 'vitest'
import { Delivery } from './delivery.js'
import { abstractMessageHash, type KeyAbstraction } from './key-abstraction.js'
import { Route } from './link-name.js'
import { SimNetwork } from './network.js'
import type { SimNode } from './sim-node.js'

/** Two nodes and `count` messages from a to b in flight (traced or not). */
function inFlight(trace: boolean, count: number) {
  const net = new SimNetwork({ seed: 1, trace, latency: 10 })
  const a = net.addNode('a')
  net.addNode('b')
  for (let i = 0; i < count; i++) a.send('b', { type: 'm', i })
  return net
}

describe('a message in flight, as the compact delivery keeps it', () => {
  for (const trace of [false, true]) {
    it(`keys, duplicates of duplicates and cancelled copies as before (trace ${trace})`, () => {
      const net = inFlight(trace, 2)
      expect(net.pendingKeys()).toEqual(['m:a>b#1', 'm:a>b#2'])
      expect(net.take('m:a>b#2', 'duplicate')).toBe(true)
      expect(net.pendingKeys()).toEqual(['m:a>b#1', 'm:a>b#2+d'])
      expect(net.take('m:a>b#2+d', 'duplicate')).toBe(true)
      expect(net.pendingKeys()).toEqual(['m:a>b#1', 'm:a>b#2+d+d'])
      expect(net.take('m:a>b#2+d', 'happen')).toBe(false) // taken: cancelled, not offered again
      expect(net.take('m:a>b#1', 'drop')).toBe(true)
      expect(net.pendingKeys()).toEqual(['m:a>b#2+d+d'])
      net.run()
      expect(net.stats.delivered).toBe(3)
      expect(net.stats.duplicated).toBe(2)
    })
  }

  it('keeps what the trace reads (id, send time) through a duplicate', () => {
    const net = inFlight(true, 1)
    net.runFor(3)
    net.take('m:a>b#1', 'duplicate')
    net.run()
    const delivers = net.trace.filter((e) => e.type === 'deliver')
    expect(delivers.map((e) => [e.id, (e as { sentAt?: number }).sentAt])).toEqual([
      [1, 0],
      [1, 0],
    ])
  })

  it('keeps its number and copies apart from cancelled, and its message hash through copies', () => {
    const route = new Route({ id: 1 } as SimNode, { id: 2 } as SimNode)
    const d = new Delivery(5, 7, 'hi', route, 2 ** 40, 0)
    d.cancelled = true
    d.cancelled = true
    expect([d.cancelled, d.number, d.duplicate, d.key]).toEqual([
      true,
      2 ** 40,
      false,
      `m:1>2#${2 ** 40}`,
    ])
    d.msgHash = { hi: 1, lo: 2 }
    const copy = d.copy(true)
    expect([copy.cancelled, copy.t, copy.seq, copy.key]).toEqual([
      false,
      5,
      7,
      `m:1>2#${2 ** 40}+d`,
    ])
    expect(copy.copy(true).msgHash).toEqual({ hi: 1, lo: 2 })
    expect(copy.copy(true).key).toBe(`m:1>2#${2 ** 40}+d+d`)
    d.cancelled = false
    expect([d.cancelled, d.number]).toEqual([false, 2 ** 40])
  })

  it('keeps what an abstraction made of its message for the last few contexts', () => {
    const route = new Route({ id: 1 } as SimNode, { id: 2 } as SimNode)
    const full = new Delivery(5, 7, { type: 'ok', time: 9 }, route, 1, 0).full()
    let made = 0
    const capped: KeyAbstraction = {
      context: () => 0,
      node: (_id, snapshot) => snapshot,
      message: (msg, _from, _to, cap) => {
        made++
        return { ...(msg as object), time: Math.min((msg as { time: number }).time, cap as number) }
      },
    }
    const at = (cap: number) => ({ ...abstractMessageHash(capped, cap, full, { hi: 0, lo: 0 }) })
    const three = at(3)
    expect(at(3)).toEqual(three)
    expect(made).toBe(1) // the second time, from the delivery
    const four = at(4)
    expect(made).toBe(2)
    expect(four).not.toEqual(three) // time 9 counts as 4, not 3
    expect(at(3)).toEqual(three)
    expect(made).toBe(2) // still kept
    // A copy carries it; another abstraction makes its own.
    expect({ ...abstractMessageHash(capped, 3, full.copy(false), { hi: 0, lo: 0 }) }).toEqual(three)
    expect(made).toBe(2)
    for (const cap of [5, 6, 7, 8]) at(cap)
    expect(made).toBe(6)
    expect(at(3)).toEqual(three) // made again: four contexts came after it
    expect(made).toBe(7)
    const other: KeyAbstraction = { ...capped }
    abstractMessageHash(other, 3, full, { hi: 0, lo: 0 })
    expect(made).toBe(8)
  })
})
