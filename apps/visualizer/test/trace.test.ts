import { readFileSync } from 'node:fs'
import { SimNetwork, type TraceDocument } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { defaultFilters, stopsOf } from '../src/filters.js'
import { parseInput } from '../src/load.js'
import { InputError } from '../src/model.js'
import { findTraceClocks, messageType, traceToDiagram } from '../src/trace.js'

const doc = (events: unknown[], nodes: unknown[] = [1, 2]): unknown => ({
  format: 'sd-trace',
  version: 1,
  seed: 1,
  nodes,
  events,
})

describe('sd traces', () => {
  it('turns sends, deliveries and node events into events, messages into arrows', () => {
    const d = traceToDiagram(
      doc([
        { t: 0, type: 'start', node: 1 },
        { t: 0, type: 'start', node: 2 },
        { t: 1, type: 'send', id: 1, from: 1, to: 2, msg: { type: 'ping', lamport: 1 } },
        { t: 3, type: 'deliver', id: 1, from: 1, to: 2, sentAt: 1 },
        { t: 4, type: 'emit', node: 2, event: { type: 'pong-ready' } },
      ]),
    )
    expect(d.format).toBe('sd-trace')
    expect(d.processes).toEqual(['1', '2'])
    expect(d.events.map((e) => [e.id, e.kind, e.process])).toEqual([
      [0, 'start', '1'],
      [1, 'start', '2'],
      [2, 'send', '1'],
      [3, 'deliver', '2'],
      [4, 'emit', '2'],
    ])
    expect(d.events.map((e) => e.label)).toEqual([
      'start',
      'start',
      '→2 #1 ping',
      '←1 #1 ping',
      '★ pong-ready',
    ])
    expect(d.messages).toHaveLength(1)
    expect(d.messages[0]).toMatchObject({
      id: '1',
      from: '1',
      to: '2',
      outcome: 'deliver',
      type: 'ping',
    })
    expect(d.messageTypes).toEqual(['ping'])
    // The message's own clock is shown on its send and its delivery.
    expect(d.events[3]!.traceClocks).toEqual([{ path: 'msg.lamport', value: 1 }])
  })

  it('draws drops to a cross, duplicates as two arrows, and copies never accounted for as in flight', () => {
    const d = traceToDiagram(
      doc([
        { t: 0, type: 'send', id: 1, from: 1, to: 2, msg: 'x' },
        { t: 0, type: 'drop', id: 1, from: 1, to: 2, reason: 'loss' },
        { t: 1, type: 'send', id: 2, from: 1, to: 2, msg: { type: 'm' } },
        { t: 1, type: 'duplicate', id: 2, from: 1, to: 2 },
        { t: 2, type: 'deliver', id: 2, from: 1, to: 2, sentAt: 1 },
        { t: 3, type: 'deliver', id: 2, from: 1, to: 2, sentAt: 1 },
        { t: 4, type: 'send', id: 3, from: 2, to: 1, msg: { type: 'm' } },
        { t: 4, type: 'duplicate', id: 3, from: 2, to: 1 },
        { t: 5, type: 'deliver', id: 3, from: 2, to: 1, sentAt: 4 },
        { t: 6, type: 'crash', node: 1 },
        { t: 6, type: 'send', id: 4, from: 2, to: 1, msg: { type: 'm' } },
        { t: 7, type: 'drop', id: 4, from: 2, to: 1, reason: 'receiver-crashed' },
      ]),
    )
    expect(d.messages.map((m) => [m.id, m.copy, m.outcome, m.duplicated])).toEqual([
      ['1', 0, 'drop', false],
      ['2', 0, 'deliver', true],
      ['2', 1, 'deliver', true],
      // Sorted by when each arrow is drawn whole: a copy in flight from its send on.
      ['3', 1, 'in-flight', true],
      ['3', 0, 'deliver', true],
      ['4', 0, 'drop', false],
    ])
    expect(d.messages[0]!.drop).toMatchObject({ reason: 'loss', atReceiver: false })
    expect(d.messages[5]!.drop).toMatchObject({ reason: 'receiver-crashed', atReceiver: true })
    expect(d.messages[0]!.type).toBe('string')
    expect(d.duplicates.map((x) => x.messageId)).toEqual(['2', '3'])
    expect(d.down).toEqual([{ process: '1', from: 6, fromSeq: expect.any(Number) }])
  })

  it('bands crashes to their restart and partitions to their heal', () => {
    const d = traceToDiagram(
      doc(
        [
          { t: 1, type: 'crash', node: 2 },
          { t: 2, type: 'partition', groups: [[1], [2, 3]] },
          { t: 5, type: 'restart', node: 2 },
          { t: 6, type: 'heal' },
        ],
        [1, 2, 3],
      ),
    )
    expect(d.down).toMatchObject([{ process: '2', from: 1, to: 5 }])
    expect(d.partitions).toMatchObject([
      { groups: [['1'], ['2', '3']], from: 2, to: 6, id: 1, healId: 3 },
    ])
  })

  it('reads composed protocols: proto on every entry, message types through the envelopes', () => {
    expect(messageType({ proto: 'lock', msg: { proto: 'inner', msg: { type: 'grant' } } })).toBe(
      'grant',
    )
    expect(messageType([1])).toBe('array')
    const d = traceToDiagram(
      doc([
        {
          t: 0,
          type: 'send',
          id: 1,
          from: 1,
          to: 2,
          msg: { proto: 'lock', msg: { type: 'req' } },
          proto: 'lock',
        },
        { t: 1, type: 'deliver', id: 1, from: 1, to: 2, sentAt: 0, proto: 'lock' },
        {
          t: 2,
          type: 'emit',
          node: 2,
          event: { proto: 'app', event: { type: 'done' } },
          proto: 'app/lock',
        },
      ]),
    )
    expect(d.protos).toEqual(['app/lock', 'lock'])
    expect(d.messages[0]).toMatchObject({ type: 'req', proto: 'lock' })
    // A delivery recorded without `proto` (as the cluster app writes them) takes its send's.
    const bare = traceToDiagram(
      doc([
        { t: 0, type: 'send', id: 1, from: 1, to: 2, msg: { type: 'req' }, proto: 'lock' },
        { t: 1, type: 'deliver', id: 1, from: 1, to: 2, sentAt: 0 },
      ]),
    )
    expect(bare.messages[0]!.proto).toBe('lock')
    expect(bare.events[1]!.proto).toBe('lock')
    expect(d.events[2]!.label).toBe('★ done')
  })

  it('takes entries in time order and adds processes the node list lacks', () => {
    const d = traceToDiagram(
      doc(
        [
          { t: 5, type: 'deliver', id: 1, from: 'a', to: 'b', sentAt: 1 },
          { t: 1, type: 'send', id: 1, from: 'a', to: 'b', msg: { type: 'hi' } },
        ],
        ['a'],
      ),
    )
    expect(d.processes).toEqual(['a', 'b'])
    expect(d.events.map((e) => e.kind)).toEqual(['send', 'deliver'])
    expect(d.messages[0]!.send).toBe(d.events[0])
  })

  it('finds the clocks an entry carries', () => {
    expect(
      findTraceClocks(
        { type: 'x', clock: [1, 0], nested: { lamport: 3 }, time: 'no', local: [] },
        'msg',
      ),
    ).toEqual([
      { path: 'msg.clock', value: [1, 0] },
      { path: 'msg.nested.lamport', value: 3 },
    ])
  })

  it('refuses what is not a trace, saying what is wrong', () => {
    expect(() => parseInput('')).toThrow(/empty/)
    expect(() => parseInput('{"a":')).toThrow(/not valid JSON/)
    expect(() => parseInput('{"format":"sd-trace"}')).toThrow(/no `events` array/)
    expect(() => parseInput('{"events":[{"type":"send"}]}')).toThrow(
      /event 0 \(send\) has no finite time/,
    )
    expect(() => parseInput('hello world')).toThrow(InputError)
    // A bare array of events is a trace too.
    expect(parseInput('[{"t":0,"type":"start","node":1}]').processes).toEqual(['1'])
  })

  it('counts entries it does not draw', () => {
    const d = traceToDiagram(
      doc([
        { t: 0, type: 'future-kind', node: 1 },
        { t: 0, type: 'start', node: 1 },
      ]),
    )
    expect(d.skipped).toBe(1)
    expect(d.events).toHaveLength(1)
  })

  it('reads a simulator run whole: every process event gets a vector and a Lamport timestamp', () => {
    const net = new SimNetwork({ seed: 5, latency: { kind: 'uniform', min: 1, max: 9 } })
    net.launch([1, 2, 3], (self) => ({
      start(ctx) {
        if (self === 1) ctx.send(2, { type: 'go' })
      },
      onMessage(_from, _msg: { type: string }, ctx) {
        if (self === 2) ctx.send(3, { type: 'on' })
      },
    }))
    net.run()
    const trace: TraceDocument = net.traceDocument()
    const d = parseInput(JSON.stringify(trace))
    const deliver3 = d.events.find((e) => e.kind === 'deliver' && e.process === '3')!
    // 3's start, then the delivery of 2's message, sent after 2 got 1's: [2, 3, 2]; Lamport:
    // 1 start 1, send 2; 2 start 1, delivery 3, send 4; 3 start 1, delivery 5.
    expect(deliver3.vc).toEqual([2, 3, 2])
    expect(deliver3.lamport).toBe(5)
  })

  it("reads the cluster's fault shapes: loss bands, marks, pause bands, resends and clock steps", () => {
    const fixture = new URL('./fixtures/synthetic-faults.json', import.meta.url)
    const d = traceToDiagram(JSON.parse(readFileSync(fixture, 'utf8')))
    expect(d.skipped).toBe(0)
    // loss 20 at entry 6 until loss 0 (entry 29); loss 5 (entry 31) to the end.
    expect(d.losses.map((l) => [l.percent, l.id, l.endId, l.to])).toEqual([
      [20, 6, 29, 22],
      [5, 31, undefined, undefined],
    ])
    expect(d.marks.map((m) => [m.label, m.t])).toEqual([
      ['workload starts', 1],
      ['checker starts', 25],
    ])
    expect(d.paused.map((b) => [b.process, b.from, b.to])).toEqual([['2', 9, 12]])
    expect(d.down.map((b) => [b.process, b.from, b.to])).toEqual([['3', 15, 20]])
    // Resends point at the message whose transmission was dropped.
    expect(
      d.messages.filter((m) => m.resendOf !== undefined).map((m) => [m.id, m.resendOf]),
    ).toEqual([
      ['3', '2'],
      ['5', '4'],
      ['9', '6'],
    ])
    expect(d.events.find((e) => e.messageId === '3' && e.kind === 'send')!.label).toBe(
      '→3 #3 ping ↻#2',
    )
    const step = d.events.find((e) => e.kind === 'clock-step')!
    expect([step.process, step.label]).toEqual(['1', 'wall clock +500 ms'])
    // Loss and mark entries are playback stops, like partitions.
    const stops = stopsOf(d, defaultFilters())
    for (const l of d.losses) expect(stops).toContain(l.fromSeq)
    for (const m of d.marks) expect(stops).toContain(m.seq)
  })

  it('a crash ends a pause, and a second loss entry replaces the first', () => {
    const d = traceToDiagram(
      doc([
        { t: 1, type: 'pause', node: 1 },
        { t: 2, type: 'loss', percent: 10 },
        { t: 3, type: 'crash', node: 1 },
        { t: 4, type: 'loss', percent: 30 },
        { t: 5, type: 'resume', node: 1, backlog: 0 },
      ]),
    )
    expect(d.paused.map((b) => [b.from, b.to])).toEqual([[1, 3]])
    expect(d.down.map((b) => [b.from, b.to])).toEqual([[3, undefined]])
    expect(d.losses.map((l) => [l.percent, l.from, l.to])).toEqual([
      [10, 2, 4],
      [30, 4, undefined],
    ])
  })
})
