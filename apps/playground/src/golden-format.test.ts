import type { TraceEvent } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { canonicalJson, goldenText, traceHash, traceToLines } from './golden.js'
import { goldenCases } from './golden-cases.js'
import { scenarios } from './scenarios/index.js'

const run = { scenario: 'demo', n: 3, seed: 7, crash: [] }

describe('traceToLines', () => {
  it('writes one line per event, times with three decimals, payloads as sorted compact JSON', () => {
    const trace: TraceEvent[] = [
      { t: 0, type: 'start', node: 1 },
      { t: 12.5, type: 'send', id: 3, from: 1, to: 2, msg: { type: 'election', term: 2, a: [1] } },
      { t: 13, type: 'deliver', id: 3, from: 1, to: 2, sentAt: 12.5 },
      { t: 14, type: 'drop', id: 4, from: 2, to: 3, reason: 'partition' },
      { t: 20, type: 'emit', node: 2, event: { type: 'leader', term: 2 } },
      { t: 21, type: 'emit', node: 2, event: 'done' },
      { t: 22, type: 'timer-set', node: 2, key: 'sync/poll', ms: 100, proto: 'sync' },
      { t: 40, type: 'partition', groups: [[1, 2], [3]] },
      { t: 41, type: 'request', node: 1, req: { type: 'acquire' }, dropped: true },
      { t: 42, type: 'storage', node: 1, set: { b: 1, a: 2 }, deleted: [], outcome: 'committed' },
      { t: 1 / 3, type: 'restart', node: 3, storageWiped: true },
      { t: 50, type: 'loss', percent: 10 },
    ]
    expect(traceToLines(trace)).toEqual([
      '0.000 start 1',
      '12.500 send #3 1->2 election {"a":[1],"term":2}',
      '13.000 deliver #3 1->2',
      '14.000 drop #4 2->3 partition',
      '20.000 emit 2 leader {"term":2}',
      '21.000 emit 2 "done"',
      '22.000 timer-set 2 sync/poll 100ms',
      '40.000 partition {1,2}|{3}',
      '41.000 request 1 acquire dropped',
      '42.000 storage 1 committed {"a":2,"b":1}',
      '0.333 restart 3 storage-wiped',
      '50.000 loss 10%',
    ])
  })

  it("names a composed child's message by its path: lock:request, app/lock:grant", () => {
    const lines = traceToLines([
      {
        t: 1,
        type: 'send',
        id: 1,
        from: 1,
        to: 2,
        proto: 'lock',
        msg: { proto: 'lock', msg: { type: 'request', n: 1 } },
      },
      {
        t: 2,
        type: 'emit',
        node: 2,
        proto: 'app/lock',
        event: { proto: 'app', event: { proto: 'lock', event: { type: 'grant' } } },
      },
    ])
    expect(lines).toEqual([
      '1.000 send #1 1->2 lock:request {"n":1}',
      '2.000 emit 2 app/lock:grant',
    ])
  })

  it('sorts keys at every depth and keeps numbers exact', () => {
    expect(canonicalJson({ z: { b: 0.1 + 0.2, a: null }, y: [{ d: 1, c: 2 }] })).toBe(
      '{"y":[{"c":2,"d":1}],"z":{"a":null,"b":0.30000000000000004}}',
    )
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}')
  })
})

describe('goldenText', () => {
  const trace: TraceEvent[] = [
    { t: 0, type: 'start', node: 1 },
    { t: 1, type: 'emit', node: 1, event: 'a' },
    { t: 2, type: 'emit', node: 1, event: 'b' },
  ]

  it('has a header naming the run and an end line with the count and hash', () => {
    const lines = goldenText({ ...run, crash: [2, 3] }, trace).split('\n')
    expect(lines[0]).toBe('# demo n=3 seed=7 crash=2,3')
    expect(lines.at(-2)).toBe(`end 3 events sha256:${traceHash(trace)}`)
    expect(lines.at(-1)).toBe('')
  })

  it('caps the events stored, and says how many were left out', () => {
    const lines = goldenText(run, trace, 2).trimEnd().split('\n')
    expect(lines.slice(2)).toEqual([
      '0.000 start 1',
      '1.000 emit 1 "a"',
      '# 1 more events not stored (cap 2)',
      `end 3 events sha256:${traceHash(trace)}`,
    ])
  })

  it('a change the printed time rounds away still changes the end line', () => {
    const shifted: TraceEvent[] = [...trace.slice(0, 2), { ...trace[2]!, t: 2.0000001 }]
    expect(traceToLines(shifted)).toEqual(traceToLines(trace))
    expect(goldenText(run, shifted)).not.toBe(goldenText(run, trace))
  })
})

describe('goldenCases', () => {
  it('keeps one file per scenario, the worked examples first', () => {
    expect(new Set(goldenCases.map((c) => c.scenario))).toEqual(
      new Set(scenarios.map((s) => s.name)),
    )
    expect(new Set(goldenCases.map((c) => c.file)).size).toBe(goldenCases.length)
    expect(goldenCases.slice(0, 3).map((c) => c.scenario)).toEqual([
      'lamport-pqr',
      'make',
      'election-bully',
    ])
    expect(goldenCases.find((c) => c.scenario === 'mutex-centralized')!.crash).toEqual([1])
  })
})
