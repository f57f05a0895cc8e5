import { scenarios } from '@sd/playground/src/scenarios/index.js'
import type { TraceEvent } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/engine/config.js'
import { judgeFor } from '../src/engine/invariants.js'
import { LabRun } from '../src/engine/lab-run.js'

const at = (t: number, node: number, event: unknown) => ({ t, node, event })
const send = (id: number, from: number, to: number, msg: unknown, t = id) =>
  ({ type: 'send', t, id, from, to, msg }) as TraceEvent
const deliver = (id: number, from: number, to: number, t = id + 0.5) =>
  ({ type: 'deliver', t, id, from, to }) as TraceEvent
const judged = (
  scenario: string,
  input: { trace?: TraceEvent[]; events?: ReturnType<typeof at>[] },
) =>
  judgeFor(scenario)!.judge({
    events: input.events ?? [],
    faults: [],
    atEnd: false,
    trace: input.trace ?? [],
    ids: [1, 2, 3],
  })

const SCENARIOS = [
  'lamport',
  'lamport-pqr',
  'make',
  'vector',
  'causal-order',
  'total-order',
  'temporal-order',
  'ntp',
  'berkeley',
]

describe('per-step invariants of the clocks and timesync scenarios', () => {
  it.each(SCENARIOS)(
    '%s: judged at every step of its runs (seeds 1 to 4), never broken',
    (name) => {
      for (const seed of [1, 2, 3, 4]) {
        const run = new LabRun({ ...defaultConfig(name, 0), seed })
        run.run(20_000, run.horizon)
        expect(run.length).toBeGreaterThan(10)
        expect(run.invariant).not.toMatch(/^none/)
        expect(
          run.firstViolation(),
          `${name} seed ${seed}: ${run.frameAt(run.length).violation}`,
        ).toBeUndefined()
        // sd run agrees: the scenario reports no violation either.
        const s = scenarios.find((x) => x.name === name)!
        expect(s.run({ n: run.net.nodeIds.length, seed, crash: [] }).violations).toEqual([])
      }
    },
  )

  it('temporal order with Δ = 0: the late deliveries the scenario counts break it', () => {
    const run = new LabRun(defaultConfig('temporal-order-late', 0))
    run.run(20_000, run.horizon)
    const first = run.firstViolation()
    expect(first).toBeDefined()
    expect(run.frameAt(first!).violation).toMatch(/delivered .* late/)
    const s = scenarios.find((x) => x.name === 'temporal-order-late')!
    expect((s.run({ n: 5, seed: 1, crash: [] }).result as { late: number }).late).toBeGreaterThan(0)
  })

  it('Lamport: a send stamped no higher than one received, or than its last, breaks it', () => {
    const ok = [send(1, 1, 2, { lamport: 1 }), deliver(1, 1, 2), send(2, 2, 3, { lamport: 2 })]
    expect(judged('make', { trace: ok })).toBeUndefined()
    const low = [send(1, 1, 2, { lamport: 5 }), deliver(1, 1, 2), send(2, 2, 3, { lamport: 3 })]
    expect(judged('make', { trace: low })).toBe(
      'clock condition broken: node 2 sent C=3 after receiving C=5',
    )
    const again = [send(1, 1, 2, { t: 4 }), send(2, 1, 3, { t: 4 })]
    expect(judged('lamport-pqr', { trace: again })).toBe(
      'clock condition broken: node 1 sent C=4 after sending C=4',
    )
    // A restarted node starts its clock over.
    const restarted = [
      ...again.slice(0, 1),
      { type: 'restart', t: 2, node: 1 } as TraceEvent,
      again[1]!,
    ]
    expect(judged('lamport-pqr', { trace: restarted })).toBeUndefined()
  })

  it('vectors: a send not above what its sender received breaks it', () => {
    const ok = [
      send(1, 1, 2, { vector: [1, 0, 0] }),
      deliver(1, 1, 2),
      send(2, 2, 3, { vector: [1, 2, 0] }),
    ]
    expect(judged('vector', { trace: ok })).toBeUndefined()
    const bad = [
      send(1, 1, 2, { vector: [1, 0, 0] }),
      deliver(1, 1, 2),
      send(2, 2, 3, { vector: [0, 2, 0] }),
    ]
    expect(judged('vector', { trace: bad })).toMatch(
      /node 2 sent V=\[0,2,0\], not above V=\[1,0,0\]/,
    )
  })

  it('causal order: delivering a message before one that causally precedes it breaks it', () => {
    const m = (from: number, seq: number, clock: number[]) => ({
      type: 'deliver',
      from,
      seq,
      clock,
    })
    // 2 had delivered 1's first message when it sent its own: 3 must deliver 1's first.
    const ok = [at(1, 3, m(1, 1, [1, 0, 0])), at(2, 3, m(2, 1, [1, 1, 0]))]
    expect(judged('causal-order', { events: ok })).toBeUndefined()
    expect(judged('causal-order', { events: [ok[1]!] })).toMatch(
      /node 3 delivered 2's message 1 \(W=\[1,1,0\]\) before 1 message\(s\) of 1/,
    )
    expect(judged('causal-order', { events: [ok[0]!, ok[0]!] })).toMatch(/twice/)
  })

  it('total order: two members delivering different messages at one position breaks it', () => {
    const d = (payload: string) => ({ type: 'deliver', payload })
    const ok = [at(1, 1, d('a')), at(1, 2, d('a')), at(2, 1, d('b'))]
    expect(judged('total-order', { events: ok })).toBeUndefined()
    expect(judged('total-order', { events: [...ok, at(3, 2, d('c'))] })).toBe(
      'node 2 delivered c at position 1, node 1 delivered b',
    )
  })

  it('Berkeley: two corrections of a round further apart than their bounds break it', () => {
    const adjusted = (node: number, t: number, readingMs: number, offsetMs: number) =>
      at(t, node, { type: 'adjusted', readingMs, offsetMs, errorBoundMs: 2 })
    const round = at(10, 1, { type: 'berkeley-round', round: 1 })
    const ok = [round, adjusted(1, 10, 100, 5), adjusted(2, 11, 50, 56)]
    expect(judged('berkeley', { events: ok })).toBeUndefined()
    expect(
      judged('berkeley', { events: [round, adjusted(1, 10, 100, 5), adjusted(2, 11, 50, 61)] }),
    ).toMatch(/round 1: node 2 set its clock 5.000 ms from node 1's/)
    // A new round starts afresh.
    const next = at(20, 1, { type: 'berkeley-round', round: 2 })
    expect(judged('berkeley', { events: [...ok, next, adjusted(2, 21, 0, 500)] })).toBeUndefined()
  })

  it('NTP: a correction beyond its bound of true time breaks it', () => {
    const adjusted = (offsetMs: number) =>
      at(100, 5, { type: 'adjusted', readingMs: 90, offsetMs, errorBoundMs: 2 })
    expect(judged('ntp', { events: [adjusted(11)] })).toBeUndefined()
    expect(judged('ntp', { events: [adjusted(14)] })).toMatch(
      /node 5 at t=100.000 ms set its clock 4.000 ms off/,
    )
  })
})
