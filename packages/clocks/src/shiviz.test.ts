import { SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { InvalidClockArgumentError } from './errors.js'
import { SHIVIZ_REGEX, toShiVizLog, traceToShiViz, traceVectorClocks } from './shiviz.js'
import { SparseVectorClock } from './vector-sparse.js'

/** Parses a log the way ShiViz does with its default GoVector regex. */
function parse(log: string): { host: string; clock: Record<string, number>; event: string }[] {
  const re = new RegExp(SHIVIZ_REGEX, 'g')
  return [...log.matchAll(re)].map((m) => ({
    host: m.groups!.host!,
    clock: JSON.parse(m.groups!.clock!) as Record<string, number>,
    event: m.groups!.event!,
  }))
}

describe('ShiViz export', () => {
  it('writes the GoVector format: host and clock on one line, the event on the next', () => {
    const a = new SparseVectorClock('A')
    const b = new SparseVectorClock('B')
    const log = toShiVizLog([
      { host: 'A', clock: a.tick().snapshot(), event: 'send hello' },
      { host: 'B', clock: b.tick().snapshot(), event: 'internal' },
      { host: 'B', clock: b.receive(a).snapshot(), event: 'receive\nhello' },
    ])
    expect(log).toBe(
      'A {"A":1}\nsend hello\nB {"B":1}\ninternal\nB {"B":2, "A":1}\nreceive hello\n',
    )
    expect(parse(log).map((e) => e.clock)).toEqual([{ A: 1 }, { B: 1 }, { B: 2, A: 1 }])
    expect(toShiVizLog([{ host: 'A', clock: { A: 1 }, event: 'x' }], { header: true })).toBe(
      `${SHIVIZ_REGEX}\n\nA {"A":1}\nx\n`,
    )
  })

  it('refuses what ShiViz would refuse', () => {
    expect(() => toShiVizLog([{ host: 'a b', clock: { 'a b': 1 }, event: '' }])).toThrow(
      InvalidClockArgumentError,
    )
    expect(() => toShiVizLog([{ host: 'A', clock: { B: 1 }, event: '' }])).toThrow(/no entry/)
    expect(() =>
      toShiVizLog([
        { host: 'A', clock: { A: 1 }, event: '' },
        { host: 'A', clock: { A: 3 }, event: '' },
      ]),
    ).toThrow(/has 3 where 2 was expected/)
  })

  it('exports a simulator trace with clocks that respect its sends and deliveries', () => {
    const net = new SimNetwork({ seed: 7, latency: { kind: 'uniform', min: 1, max: 20 } })
    net.launch<{ type: 'ping'; hop: number }>(['A', 'B', 'C'], (self) => ({
      start(ctx) {
        if (self === 'A') ctx.broadcast({ type: 'ping', hop: 0 })
      },
      onMessage(_from, msg, ctx) {
        if (msg.hop < 3)
          ctx.send(ctx.peers[msg.hop % ctx.peers.length]!, { type: 'ping', hop: msg.hop + 1 })
      },
    }))
    net.run()
    const events = traceVectorClocks(net.trace)
    const sends = new Map<number, SparseVectorClock>()
    for (const e of events) {
      if (e.source.type === 'send') sends.set(e.source.id!, e.clock)
      if (e.source.type === 'deliver')
        expect(sends.get(e.source.id!)!.happenedBefore(e.clock)).toBe(true)
    }
    expect(events.filter((e) => e.source.type === 'deliver').length).toBe(net.stats.delivered)
    const parsed = parse(traceToShiViz(net.trace))
    expect(parsed.length).toBe(events.length)
    expect(parsed[0]!.event).toMatch(/^send #1 ping to B at 0ms$/)
  })
})
