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

  it.each(['lamport', 'ring', 'cmh', 'make', 'cristian', 'vector', 'berkeley', 'chang-roberts'])(
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

  it('the twelve worked examples of the texts each have a lesson', () => {
    expect(lessons).toHaveLength(12)
    expect(new Set(lessons.map((l) => l.id)).size).toBe(12)
  })

  it('token ring: 5 crashed when told is skipped and removed, and the ring goes on safely', () => {
    const { run } = play('token-ring')
    expect(run.stepsText()).toMatch(/crash:5/)
    const emitted = run.emitted().map((e) => ({ node: e.node, ...(e.event as { type: string }) }))
    const changed = emitted.filter((e) => e.type === 'ring-changed')
    // Every live node learns the ring without 5.
    expect(new Set(changed.map((e) => e.node))).toEqual(new Set([1, 2, 3, 4, 6]))
    for (const e of changed) expect((e as { members?: number[] }).members).toEqual([1, 2, 3, 4, 6])
    // Each of 2 and 4 asks three times and is served three times; no two holders at once.
    for (const node of [2, 4])
      expect(emitted.filter((e) => e.node === node && e.type === 'acquired')).toHaveLength(3)
    expect(run.firstViolation()).toBeUndefined()
  })

  it("the outcomes the lessons name are the scenarios' JSON", () => {
    const result = (name: string, n: number) =>
      scenarios.find((x) => x.name === name)!.run({ n, seed: 1, crash: [] }).result as Record<
        string,
        unknown
      >
    const emits = (id: string, type: string) =>
      play(id)
        .run.emitted()
        .filter((e) => (e.event as { type: string }).type === type)
    // Chang-Roberts: 80 leads, after 24 ELECTION messages (36 at worst, 21.7 on average).
    const cr = result('election-chang-roberts', 8) as {
      leader: number
      messages: { election: number }
      theory: { worst: number; average: number }
      ring: number[]
    }
    expect(cr).toMatchObject({ leader: 80, messages: { election: 24 } })
    expect(cr.theory).toEqual({ worst: 36, average: 21.7 })
    expect(new Set(cr.ring)).toEqual(new Set([6, 58, 47, 19, 15, 27, 54, 80]))
    const crRun = play('chang-roberts').run
    expect(
      crRun
        .traceAt()
        .filter((e) => e.type === 'send' && (e.msg as { type: string }).type === 'election'),
    ).toHaveLength(24)
    expect(
      new Set(emits('chang-roberts', 'leader').map((e) => (e.event as { leader: number }).leader)),
    ).toEqual(new Set([80]))
    // Berkeley: 5 left out of the first average, every round drawn, every adjustment.
    const b = result('berkeley', 5) as {
      far: number
      rounds: number
      adjusted: number
      firstRound: { ignored: number[] }
    }
    expect(b.far).toBe(5)
    expect(b.firstRound.ignored).toEqual([5])
    expect(emits('berkeley', 'berkeley-round')).toHaveLength(b.rounds)
    expect(emits('berkeley', 'adjusted')).toHaveLength(b.adjusted)
    // Vector clocks: the vectors the lesson quotes are those the messages carry.
    const vectors = play('vector')
      .run.traceAt()
      .flatMap((e) =>
        e.type === 'send' ? [`${e.from}@${e.t}:${(e.msg as { vector: number[] }).vector}`] : [],
      )
    for (const v of ['3@9:0,0,1', '1@20:1,0,0', '1@36:3,0,1', '3@41:0,1,4', '2@64:1,6,4'])
      expect(vectors).toContain(v)
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
