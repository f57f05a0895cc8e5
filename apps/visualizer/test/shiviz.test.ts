import { SHIVIZ_REGEX, SparseVectorClock, toShiVizLog, traceToShiViz } from '@sd/clocks'
import { SimNetwork } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { causalSets } from '../src/causality.js'
import { detectFormat, parseInput } from '../src/load.js'
import { looksLikeShiViz, parseShiVizLog, shivizToDiagram } from '../src/shiviz.js'

/** A sends to B, B to C; C's clock knows A's send only through B: no edge A → C. */
function chainLog(header: boolean): string {
  const a = new SparseVectorClock('A')
  const b = new SparseVectorClock('B')
  const c = new SparseVectorClock('C')
  const entries = [
    { host: 'A', clock: a.tick().snapshot(), event: 'send m1 to B' },
    { host: 'C', clock: c.tick().snapshot(), event: 'local' },
    { host: 'B', clock: b.receive(a).snapshot(), event: 'receive m1' },
    { host: 'B', clock: b.tick().snapshot(), event: 'send m2 to C' },
    { host: 'C', clock: c.receive(b).snapshot(), event: 'receive m2' },
  ]
  return toShiVizLog(entries, { header })
}

describe('ShiViz / GoVector logs', () => {
  it('detects the format, with or without the header lines', () => {
    expect(looksLikeShiViz(chainLog(false))).toBe(true)
    expect(looksLikeShiViz(chainLog(true))).toBe(true)
    expect(detectFormat(chainLog(true))).toBe('shiviz')
    expect(detectFormat('{"events":[]}')).toBe('sd-trace')
    expect(looksLikeShiViz('just text\nmore')).toBe(false)
  })

  it('reads hosts, clocks and event text; the header regex is used', () => {
    const log = parseShiVizLog(chainLog(true))
    expect(log.regex).toBe(SHIVIZ_REGEX)
    expect(log.hosts).toEqual(['A', 'C', 'B'])
    expect(log.entries.map((e) => [e.host, e.clock, e.text])).toEqual([
      ['A', { A: 1 }, 'send m1 to B'],
      ['C', { C: 1 }, 'local'],
      ['B', { B: 1, A: 1 }, 'receive m1'],
      ['B', { B: 2, A: 1 }, 'send m2 to C'],
      ['C', { C: 2, A: 1, B: 2 }, 'receive m2'],
    ])
    // CRLF line ends and a custom regex with other group order.
    const custom = '(?<clock>{.*}) (?<host>\\S+)\\n(?<event>.*)\n\n{"x":1} x\r\nhello\r\n'
    expect(parseShiVizLog(custom).entries).toEqual([
      { index: 0, host: 'x', clock: { x: 1 }, text: 'hello' },
    ])
  })

  it('infers messages from the clocks, without the transitive ones', () => {
    const d = shivizToDiagram(chainLog(false))
    expect(d.format).toBe('shiviz')
    expect(d.clocksFrom).toBe('input')
    expect(d.messages.map((m) => [m.from, m.to, m.send!.id, m.deliver!.id])).toEqual([
      ['A', 'B', 0, 2],
      ['B', 'C', 3, 4],
    ])
    // Vector clocks come from the log, in process order A, C, B.
    expect(d.events.find((e) => e.id === 4)!.vc).toEqual([1, 2, 2])
    expect(d.events.map((e) => e.lamport)).toEqual([1, 1, 2, 3, 4])
    const sets = causalSets(d, d.events.find((e) => e.id === 3)!)
    expect([...sets.past].map((e) => e.id).sort()).toEqual([0, 2])
    expect([...sets.future].map((e) => e.id)).toEqual([4])
    expect([...sets.concurrent].map((e) => e.id)).toEqual([1])
  })

  it('draws events in an order where a receive never comes before its send', () => {
    // The receive is logged first (logs merged from hosts need not be causally ordered).
    const log = 'B {"B":1, "A":1}\nreceive\nA {"A":1}\nsend\n'
    const d = parseInput(log)
    expect(d.events.map((e) => e.id)).toEqual([1, 0])
    expect(d.messages).toHaveLength(1)
    expect(d.timeline[1]!.after).toBe(0)
  })

  it('reads the executions delimiter and keeps the first execution', () => {
    const text = `${SHIVIZ_REGEX}\n^===$\nA {"A":1}\na\n===\nB {"B":1}\nb\n`
    const log = parseShiVizLog(text)
    expect(log.executions).toBe(2)
    expect(log.hosts).toEqual(['A'])
  })

  it('refuses what ShiViz refuses, saying where', () => {
    expect(() => parseShiVizLog('A {"A":2}\nx\n')).toThrow(/own clock entry is 2, expected 1/)
    expect(() => parseShiVizLog('A {"A":1, "B":1}\nx\n')).toThrow(/has "B": 1, but "B" logs 0/)
    expect(() => parseShiVizLog('A {"A":1,}\nx\n')).toThrow(/not JSON/)
    expect(() => parseShiVizLog('(?<host>\\S+)(\n\nA {"A":1}\nx\n')).toThrow(
      /bad ShiViz parser regex/,
    )
  })

  it('reads what @sd/clocks exports for a simulator trace: one event per logged entry', () => {
    const net = new SimNetwork({ seed: 2, latency: { kind: 'uniform', min: 1, max: 5 } })
    net.launch([1, 2, 3], (self) => ({
      start(ctx) {
        for (const p of ctx.peers) if (p !== self) ctx.send(p, { type: 'hello' })
      },
      onMessage() {},
    }))
    net.run()
    const trace = net.traceDocument().events
    const d = parseInput(traceToShiViz(trace, { header: true }))
    expect(d.processes.sort()).toEqual(['1', '2', '3'])
    expect(d.events).toHaveLength(
      trace.filter((e) => e.type === 'send' || e.type === 'deliver').length,
    )
    // Each delivery is the first news of its send: one arrow each.
    expect(d.messages).toHaveLength(6)
  })
})
