/**
 * The summary's `sent` and `delivered` agree in meaning: a send is counted and reported before
 * it leaves, so a node killed right after it has already told the parent, and the deliveries
 * summed over the nodes never exceed the sends (a kill-holder run reported 1,896 sent and 1,901
 * delivered: the transport's counters, read every 300 ms, missed a killed node's last sends).
 */
import type { Transport } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { countedTransport, type MessageCounts } from '../src/node/counted.js'

/** Two endpoints joined directly; `refuse` makes the next send throw. */
function pair() {
  const handlers = new Map<string, (from: string, msg: unknown) => void>()
  const log: string[] = []
  let refuse = false
  const end = (self: string): Transport<unknown> => ({
    self,
    closed: false,
    send(to, msg) {
      if (refuse) throw new Error('backpressure')
      log.push(`wire ${self}->${to}`)
      handlers.get(String(to))?.(self, msg)
    },
    onMessage(h) {
      handlers.set(self, h)
      return () => handlers.delete(self)
    },
    close: async () => {},
  })
  return { end, log, refuse: (on: boolean) => (refuse = on) }
}

describe('countedTransport', () => {
  it('reports each send before it reaches the wire, counts deliveries, and not a refused send', () => {
    const net = pair()
    const reports: MessageCounts[] = []
    const a = countedTransport(net.end('a'), (c) => {
      reports.push({ ...c })
      net.log.push(`report sent=${c.sent}`)
    })
    const b = countedTransport(net.end('b'), () => {})
    const got: unknown[] = []
    b.transport.onMessage((_from, msg) => got.push(msg))
    a.transport.send('b', 1)
    a.transport.send('b', 2)
    // The report of each send comes before the send: a kill between the two loses no count.
    expect(net.log).toEqual(['report sent=1', 'wire a->b', 'report sent=2', 'wire a->b'])
    expect(got).toEqual([1, 2])
    expect(a.counts).toEqual({ sent: 2, delivered: 0 })
    expect(b.counts).toEqual({ sent: 0, delivered: 2 })
    net.refuse(true)
    expect(() => a.transport.send('b', 3)).toThrow('backpressure')
    expect(a.counts.sent).toBe(2)
    // Whatever the instant of a kill, what the parent was told of is at least what arrived.
    expect(reports.at(-1)!.sent).toBeGreaterThanOrEqual(b.counts.delivered)
  })
})
