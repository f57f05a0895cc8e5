import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/engine/config.js'
import { judgeFor } from '../src/engine/invariants.js'
import { LabRun } from '../src/engine/lab-run.js'

const at = (t: number, node: number, event: unknown) => ({ t, node, event })

describe('invariants judged per step', () => {
  it('mutual exclusion: two holders at once break it, one after the other does not', () => {
    const judge = judgeFor('mutex-ricart-agrawala')!.judge
    const ok = [
      at(1, 1, { type: 'acquired', resource: 'default', token: 1 }),
      at(2, 1, { type: 'released', resource: 'default', token: 1 }),
      at(3, 2, { type: 'acquired', resource: 'default', token: 2 }),
    ]
    expect(judge({ events: ok, faults: [], atEnd: false })).toBeUndefined()
    const both = [
      at(1, 1, { type: 'acquired', resource: 'default', token: 1 }),
      at(2, 2, { type: 'acquired', resource: 'default', token: 2 }),
    ]
    expect(judge({ events: both, faults: [], atEnd: false })).toMatch(/1.*2|2.*1/)
  })

  it('elections: two leaders of one term break it', () => {
    const judge = judgeFor('election-bully')!.judge
    const events = [
      at(1, 1, { type: 'leader', leader: 3, term: 1 }),
      at(2, 2, { type: 'leader', leader: 2, term: 1 }),
    ]
    expect(judge({ events, faults: [], atEnd: false })).toBe('two leaders in term 1: 3 and 2')
    expect(judge({ events: events.slice(0, 1), faults: [], atEnd: false })).toBeUndefined()
  })

  it('flooding: a rumour delivered twice breaks it', () => {
    const judge = judgeFor('flood')!.judge
    const events = [at(1, 2, { delivered: 1 }), at(2, 2, { delivered: 1 })]
    expect(judge({ events, faults: [], atEnd: false })).toBe('node 2 delivered rumour 1 twice')
  })

  it("Cristian: a correction beyond its bound of the server's clock breaks it", () => {
    const judge = judgeFor('cristian')!.judge
    const adjusted = (readingMs: number, offsetMs: number) =>
      at(100, 2, { type: 'adjusted', readingMs, offsetMs, errorBoundMs: 2 })
    expect(judge({ events: [adjusted(90, 11)], faults: [], atEnd: false })).toBeUndefined()
    expect(judge({ events: [adjusted(90, 13)], faults: [], atEnd: false })).toMatch(
      /node 2 at t=100.000 ms set its clock 3.000 ms off/,
    )
    const run = new LabRun(defaultConfig('cristian', 0))
    run.run(100_000, run.horizon)
    expect(run.emitted().length).toBeGreaterThan(10)
    expect(run.firstViolation()).toBeUndefined()
  })

  it('every sd run scenario has one; other names none', () => {
    for (const s of scenarios) expect(judgeFor(s.name), s.name).toBeDefined()
    expect(judgeFor('no-such-scenario')).toBeUndefined()
  })

  it('every step of a real run is judged, and an unsteered one keeps the invariant', () => {
    const run = new LabRun(defaultConfig('mutex-ricart-agrawala', 0))
    run.run(10_000, run.horizon)
    expect(run.firstViolation()).toBeUndefined()
    expect(run.invariant).toBe('mutual exclusion, fencing tokens')
  })
})
