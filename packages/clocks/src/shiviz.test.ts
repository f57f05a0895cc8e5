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
      'A {"A":1}\nsend hello\nB {"B":1}\ninternal\nB {"B":2, "A":1}\nreceive\\nhello\n',
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

  it('refuses a clock entry for a host with no events, or beyond its events, as ShiViz does', () => {
    expect(() =>
      toShiVizLog([
        { host: 'A', clock: { A: 1 }, event: 'send' },
        { host: 'B', clock: { B: 1, A: 1, C: 1 }, event: 'receive' },
      ]),
    ).toThrow(/event 2 of the log \(host B\) has "C": 1, but no event of "C" is logged/)
    expect(() =>
      toShiVizLog([
        { host: 'A', clock: { A: 1 }, event: 'send' },
        { host: 'B', clock: { B: 1, A: 2 }, event: 'receive' },
      ]),
    ).toThrow(/has "A": 2, but "A" logs only 1 event/)
    // An entry at 0 is not written, so it names nobody.
    expect(toShiVizLog([{ host: 'A', clock: { A: 1, C: 0 }, event: 'x' }])).toBe('A {"A":1}\nx\n')
  })

  it('refuses host names with control characters, which could split the host line', () => {
    for (const host of ['A\u0085B', 'A\u0000', 'A\u001bB', 'A\u2028B', 'A\rB']) {
      expect(() => toShiVizLog([{ host, clock: { [host]: 1 }, event: '' }])).toThrow(
        /white space or control characters/,
      )
    }
  })

  // Crafted event text: after a line break, a fake host line that drops A from B's clock. Written
  // raw, ShiViz ends the event at the break, takes the fake line for an event of B, and B's real
  // event (the receive of A's message) loses its header and with it the message edge.
  const breaks = ['\n', '\r', '\r\n', '\u2028', '\u2029', '\u0085', '\u000b', '\u000c']
  const codePoints = (text: string) =>
    [...text].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)
  it.each(breaks.map((b) => [codePoints(b).join(' '), b]))(
    'escapes %s in event text: no fake event, no lost edge',
    (_name, lineBreak) => {
      const crafted = `send${lineBreak}B {"B":1}${lineBreak}fake`
      const log = toShiVizLog([
        { host: 'A', clock: { A: 1 }, event: crafted },
        { host: 'B', clock: { B: 1, A: 1 }, event: 'receive' },
      ])
      const events = parse(log)
      expect(events.map((e) => [e.host, e.clock])).toEqual([
        ['A', { A: 1 }],
        ['B', { B: 1, A: 1 }],
      ])
      expect(events[1]!.event).toBe('receive')
      expect(events[0]!.event).toMatch(/^send\\.*B \{"B":1\}\\.*fake$/)
      // Two lines per event and no other line break of any kind.
      expect(log.split('\n')).toHaveLength(5)
      for (const other of ['\r', '\u2028', '\u2029', '\u0085', '\u000b', '\u000c'])
        expect(log.includes(other)).toBe(false)
    },
  )

  it('writes every other control character as an escape', () => {
    const controls = [0, 7, 9, 27, 0x7f, 0x80, 0x9f].map((c) => String.fromCharCode(c)).join('')
    const [event] = parse(toShiVizLog([{ host: 'A', clock: { A: 1 }, event: `<${controls}>` }]))
    expect(event!.event).toBe('<\\u0000\\u0007\\t\\u001b\\u007f\\u0080\\u009f>')
  })

  it('keeps a trace event whole when what it emitted holds a line separator', () => {
    const net = new SimNetwork({ seed: 3, latency: 5 })
    net.launch<string, never, string>(['A', 'B'], (self) => ({
      start(ctx) {
        if (self === 'A') ctx.send('B', 'hello')
      },
      onMessage(_from, _msg, ctx) {
        // JSON.stringify, used by the default description, leaves U+2028 and U+2029 raw.
        ctx.emit('got it\u2028A {"A":1}\u2029B {"B":9}')
      },
    }))
    net.run()
    const traced = traceVectorClocks(net.trace)
    const parsed = parse(traceToShiViz(net.trace))
    expect(parsed.map((e) => [e.host, e.clock])).toEqual(
      traced.map((e) => [String(e.host), e.clock.toObject()]),
    )
    expect(parsed.at(-1)!.event).toBe(
      'emit "got it\\u2028A {\\"A\\":1}\\u2029B {\\"B\\":9}" at 5ms',
    )
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
