import type { TraceEvent } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { renderDiagram } from './diagram.js'
import { displayWidth } from './width.js'

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' })

/** The character drawn at display column `col` of `line` (' ' past its end). */
function charAt(line: string, col: number): string {
  let at = 0
  for (const { segment } of segmenter.segment(line)) {
    if (at === col) return segment
    at += displayWidth(segment)
    if (at > col) return '' // inside a wide character
  }
  return ' '
}

/** Display columns where the header's `node N` labels start: where each column begins. */
function columnStarts(header: string, count: number): number[] {
  const starts: number[] = []
  for (let id = 1; id <= count; id++) {
    const index = header.indexOf(`node ${id}`)
    starts.push(displayWidth(header.slice(0, index)))
  }
  return starts
}

const send = (t: number, id: number, from: number, to: number): TraceEvent => ({
  t,
  type: 'send',
  id,
  from,
  to,
  msg: { type: 'ping' },
})

describe('renderDiagram', () => {
  it('keeps every column in place, whatever the width of the symbols in a cell', () => {
    const trace: TraceEvent[] = [
      { t: 0, type: 'timer-fire', node: 1, key: 'tick' },
      { t: 1, type: 'crash', node: 1 },
      { t: 2, type: 'restart', node: 1 },
      {
        t: 3,
        type: 'emit',
        node: 1,
        event: { type: 'deliver', from: 3, seq: 12, clock: [1, 2, 3] },
      },
      send(4, 1, 1, 2),
      { t: 5, type: 'timer-fire', node: 2, key: '⏰⏰ emoji key' },
    ]
    const lines = renderDiagram(trace, {
      nodes: [1, 2, 3],
      width: 100,
      annotate: (e) => (e.type === 'emit' ? 'm3.12 V=[1,2,3] (was held)' : undefined),
    }).split('\n')
    const [c1, c2, c3] = columnStarts(lines[0]!, 3)
    const rows = lines.slice(2)
    expect(rows.length).toBeGreaterThan(trace.length) // the long emit took a continuation line
    for (const row of rows) {
      if (row.includes('⏰⏰')) continue
      // Every event is node 1's: nodes 2 and 3 keep their line at their column on every row.
      expect(charAt(row, c2!), row).toMatch(/[│┊]/)
      expect(charAt(row, c3!), row).toMatch(/[│┊]/)
    }
    const node2 = rows.find((r) => r.includes('⏰⏰'))!
    expect(charAt(node2, c1!)).toBe('│')
    expect(charAt(node2, c2!)).toBe('⏰')
    expect(charAt(node2, c3!)).toBe('│')
  })

  it('puts the scenario note before the raw event, and the rest on an indented line', () => {
    const trace: TraceEvent[] = [
      { t: 3, type: 'emit', node: 2, event: { type: 'broadcast', seq: 1, clock: [1, 0, 0] } },
    ]
    const rows = renderDiagram(trace, {
      nodes: [1, 2, 3],
      width: 100,
      annotate: () => 'm2.1 V=[0,1,0]',
    })
      .split('\n')
      .slice(2)
    expect(rows[0]).toMatch(/│ +★ m2\.1 V=\[0,1,0\] +│$/)
    expect(rows[1]).toMatch(/^ +│ {3,}\{"type":"broadcast"/)
    expect(rows[1]).toMatch(/│$/)
  })

  it('draws partitions and heals across the diagram, and crashed nodes as down', () => {
    const trace: TraceEvent[] = [
      { t: 0, type: 'crash', node: 2 },
      send(5, 1, 1, 3),
      {
        t: 40,
        type: 'partition',
        groups: [
          [1, 2],
          [3, 4],
        ],
      },
      { t: 60, type: 'restart', node: 2 },
      { t: 90, type: 'heal' },
      send(95, 2, 1, 3),
    ]
    const lines = renderDiagram(trace, { nodes: [1, 2, 3, 4], width: 100 }).split('\n')
    const [, c2] = columnStarts(lines[0]!, 4)
    const at = (t: string) => lines.find((l) => l.trimStart().startsWith(t))!
    expect(charAt(at('0.000'), c2!)).toBe('💥')
    expect(at('0.000')).toContain('💥 crash')
    expect(charAt(at('5.000'), c2!)).toBe('┊') // down
    expect(at('40.000')).toMatch(/── partition \{1,2\} \| \{3,4\} ─+$/)
    expect(at('60.000')).toContain('↻ restart')
    expect(at('90.000')).toMatch(/── heal ─+$/)
    expect(charAt(at('95.000'), c2!)).toBe('│') // up again
    // A marker row is as wide as the diagram.
    expect(displayWidth(at('40.000'))).toBe(displayWidth(lines[1]!))
  })

  it('switches to a compact view that fits the width when the full one does not', () => {
    const nodes = Array.from({ length: 16 }, (_, i) => i + 1)
    const trace: TraceEvent[] = nodes.flatMap((id) => [
      { t: id, type: 'timer-fire', node: id, key: 'step' } as TraceEvent,
      send(id + 0.5, id, id, (id % 16) + 1),
      { t: id + 0.7, type: 'emit', node: id, event: { type: 'deliver', seq: id * 1000 } },
    ])
    const full = renderDiagram(trace, { nodes, width: 1000 })
    expect(full).toContain('node 16')
    expect(full).not.toContain('compact view')
    const text = renderDiagram(trace, { nodes, width: 100 })
    expect(text).toContain('compact view')
    const lines = text.split('\n')
    expect(lines[0]).toMatch(/^t \(ms\) +1 +2 +3 .* 16$/)
    for (const line of lines.slice(0, -1)) expect(displayWidth(line), line).toBeLessThanOrEqual(100)
    // A cell too long for its column of four goes on under its row, on two lines at most
    // (none of these has a note): `→2` then `ping`, the type whole.
    expect(lines.length).toBeGreaterThan(2 + trace.length + 1)
    expect(lines.length).toBeLessThanOrEqual(2 + 2 * trace.length + 1)
    const sendRow = lines.findIndex((l) => /^ +1\.5 +→2 /.test(l))
    expect(sendRow).toBeGreaterThan(0)
    expect(lines[sendRow + 1]).toMatch(/^ +ping /)
    // A compact cell leaves the message id out: the room goes to the type.
    expect(text).not.toMatch(/#\d/)
  })

  it('says when the compact view is still wider than the terminal', () => {
    const nodes = Array.from({ length: 40 }, (_, i) => i + 1)
    const text = renderDiagram([send(1, 1, 1, 2)], { nodes, width: 100 })
    expect(text).toMatch(/this diagram is \d+ columns wide, more than 100/)
  })

  it('folds message rows past maxRows into counted gaps, and keeps what nodes emit', () => {
    const trace: TraceEvent[] = [
      ...Array.from({ length: 10 }, (_, i) => send(i, i + 1, 1, 2)),
      { t: 20, type: 'emit', node: 2, event: { type: 'leader' } },
      send(21, 11, 1, 2),
    ]
    const text = renderDiagram(trace, { nodes: [1, 2], maxRows: 4 })
    expect(text).toMatch(/10 rows folded, 0\.000–9\.000 ms: ping ×10/)
    expect(text).toContain('★')
    expect(text).toContain('→2 #11')
    expect(text).not.toContain('more events')
  })
})

describe('renderDiagram: notes and raw JSON', () => {
  const emit = (t: number, node: number, event: unknown): TraceEvent => ({
    t,
    type: 'emit',
    node,
    event,
  })
  const event = { proto: 'wait-die', event: { type: 'started', tx: 3, timestamp: 0.698 } }

  it('leaves out raw JSON after a note when the cell would cut it, and keeps it when it fits', () => {
    const trace = [emit(1, 2, event)]
    const annotate = () => '3 starts (timestamp 0.698)'
    const narrow = renderDiagram(trace, { nodes: [1, 2, 3, 4], width: 80, annotate })
    expect(narrow).toContain('3 starts')
    expect(narrow).not.toMatch(/\{"prot/)
    expect(narrow).not.toContain('…')
    const short = renderDiagram([emit(1, 2, { type: 'x' })], { nodes: [1, 2], width: 80, annotate })
    expect(short).toContain('{"type":"x"}')
  })
})

describe('renderDiagram: idle stretches', () => {
  it('marks a long wait between two rows, and not the ordinary steps', () => {
    const trace: TraceEvent[] = [
      ...[0, 1, 2, 3, 4, 5].map((t) => send(t, t + 1, 1, 2)),
      ...[500, 501, 502].map((t) => send(t, t + 1, 2, 1)),
    ]
    const lines = renderDiagram(trace, { nodes: [1, 2], width: 80 }).split('\n')
    const idle = lines.filter((l) => l.includes('idle'))
    expect(idle).toEqual([expect.stringMatching(/^ +┄ 495 ms idle$/)])
    // It comes between the row at 5 ms and the one at 500 ms.
    const at = lines.indexOf(idle[0]!)
    expect(lines[at - 1]).toMatch(/^ +5\.000 /)
    expect(lines[at + 1]).toMatch(/^ *500\.000 /)
  })

  it('needs twenty median steps and a fiftieth of the run', async () => {
    const { idleThreshold } = await import('./diagram.js')
    expect(idleThreshold([0, 1, 2, 3, 100])).toBe(20)
    expect(idleThreshold([0, 1, 2, 3, 5000])).toBe(100)
    expect(idleThreshold([7])).toBe(Number.POSITIVE_INFINITY)
  })
})
