import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { describe, expect, it } from 'vitest'
import { LabRun } from '../src/engine/lab-run.js'
import { beatAt, type Cue, lessons, matches } from '../src/engine/lessons.js'
import { parseSteps } from '../src/engine/steps.js'

const MAX = 20_000

/** Plays a lesson as a student who acts when told: the beats reached, in order, and the run. */
function play(id: string) {
  const lesson = lessons.find((l) => l.id === id)!
  const run = new LabRun({ ...lesson.config, steps: [], lesson: id })
  const seen = [0]
  const acted = new Set<number>()
  for (let i = 0; i < MAX; i++) {
    const b = beatAt(lesson, run.traceAt())
    if (b !== seen.at(-1)) seen.push(b)
    const act = lesson.beats[b]!.act
    if (act !== undefined && !acted.has(b)) {
      acted.add(b)
      for (const step of parseSteps(act)) run.choose(step)
      continue
    }
    if (b === lesson.beats.length - 1) break
    if (!run.forward()) break
  }
  run.run(MAX, run.horizon)
  return { lesson, run, seen }
}

describe('lessons', () => {
  it.each(lessons.map((l) => l.id))('%s plays to its last beat, every beat in order', (id) => {
    const { lesson, seen } = play(id)
    expect(seen).toEqual(lesson.beats.map((_, i) => i))
    for (const beat of lesson.beats) {
      expect(beat.say.pt.length).toBeGreaterThan(10)
      expect(beat.say.en.length).toBeGreaterThan(10)
    }
  })

  it.each(['lamport', 'ring', 'cmh', 'make', 'cristian'])(
    '%s, with nothing to do, is the run of sd run',
    (id) => {
      const { lesson, run } = play(id)
      const s = scenarios.find((x) => x.name === lesson.config.scenario)!
      expect(run.net.trace).toEqual(s.run({ n: lesson.config.n, seed: 1, crash: [] }).net.trace)
    },
  )

  it('the quorum lesson marks the violation the scenario is built to show', () => {
    const { run } = play('quorum')
    const first = run.firstViolation()
    expect(first).toBeDefined()
    const s = scenarios.find((x) => x.name === 'mutex-quorum')!
    const expected = s.run({ n: 7, seed: 1, crash: [] }).expectedViolations ?? []
    expect(expected.length).toBeGreaterThan(0)
    expect(run.frameAt(first!).violation).toMatch(/6|7/)
  })

  it('bully: the student crashes 7 when told; 7 still leads at the end, as in sd run', () => {
    const { run } = play('bully')
    expect(run.stepsText()).toMatch(/crash:7/)
    const leaders = run
      .emitted()
      .flatMap((e) =>
        (e.event as { type?: string }).type === 'leader'
          ? [(e.event as { leader: number }).leader]
          : [],
      )
    const s = scenarios.find((x) => x.name === 'election-bully')!
    expect(leaders.at(-1)).toBe(
      (s.run({ n: 8, seed: 1, crash: [] }).result as { leader: number }).leader,
    )
    expect(run.firstViolation()).toBeUndefined()
  })

  it('a cue matches by time, type, node and what was sent or emitted', () => {
    const send = { t: 5, type: 'send', id: 1, from: 4, to: 5, msg: { type: 'election' } } as const
    const cue = (c: Cue) => matches(c, send)
    expect(cue({})).toBe(true)
    expect(cue({ t: 5, type: 'send', node: '4', what: 'election' })).toBe(true)
    expect(cue({ t: 6 })).toBe(false)
    expect(cue({ node: '5' })).toBe(false)
    expect(cue({ what: 'ok' })).toBe(false)
  })
})
