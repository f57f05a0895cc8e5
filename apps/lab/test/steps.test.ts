import { labLink } from '@sd/playground/src/check/lab-link.js'
import { describe, expect, it } from 'vitest'
import { decodeConfig, encodeConfig, type LabConfig } from '../src/engine/config.js'
import { AUTO, formatSteps, parseSteps, type Step, StepSyntaxError } from '../src/engine/steps.js'

const every: Step[] = [
  AUTO,
  AUTO,
  { kind: 'happen', key: 'm:1>2#3' },
  { kind: 'happen', key: 't:2#1' },
  { kind: 'happen', key: 'r:2#1' },
  { kind: 'happen', key: 'a#4' },
  { kind: 'drop', key: 'm:2>1#1' },
  { kind: 'dup', key: 'm:1>3#2+d' },
  { kind: 'crash', node: '3' },
  { kind: 'restart', node: '3' },
  { kind: 'pause', node: '2', ms: 1500 },
  { kind: 'hold', node: 'b' },
  { kind: 'resume', node: 'b' },
  { kind: 'clock', node: '1', deltaMs: -1000 },
  { kind: 'cut', a: '1', b: '2' },
  { kind: 'mend', a: '1', b: '2' },
  { kind: 'part', groups: [['1', '2'], ['3']] },
  { kind: 'heal' },
  AUTO,
]

describe('lab steps as text', () => {
  it('round-trips every kind of step, runs of auto as ~N', () => {
    const text = formatSteps(every)
    expect(text).toBe(
      '~2 m:1>2#3 t:2#1 r:2#1 a#4 drop:m:2>1#1 dup:m:1>3#2+d crash:3 restart:3 pause:2@1500 hold:b resume:b step:1@-1000 cut:1-2 mend:1-2 part:1,2|3 heal ~1',
    )
    expect(parseSteps(text)).toEqual(every)
  })

  it('reads an sd check schedule as it prints it', () => {
    expect(parseSteps('t:1#1 m:1>2#1 drop:m:1>3#1 crash:2 step:1@-1000 pause:3@1000')).toEqual([
      { kind: 'happen', key: 't:1#1' },
      { kind: 'happen', key: 'm:1>2#1' },
      { kind: 'drop', key: 'm:1>3#1' },
      { kind: 'crash', node: '2' },
      { kind: 'clock', node: '1', deltaMs: -1000 },
      { kind: 'pause', node: '3', ms: 1000 },
    ])
  })

  it.each(['x:1', 'drop:', 'drop:crash:1', 'pause:2', 'step:@5', 'cut:1', 'part:1,|2', '~0', 'm'])(
    'refuses %s',
    (word) => {
      expect(() => parseSteps(word)).toThrow(StepSyntaxError)
    },
  )
})

describe('the URL of a run', () => {
  const config: LabConfig = {
    mode: 'run',
    scenario: 'election-bully',
    n: 8,
    seed: 42,
    crash: ['7'],
    pause: '2@50+100',
    clockStep: '1@40:-500',
    steps: every,
    lesson: 'bully',
    lang: 'pt',
  }

  it('round-trips scenario, n, seed, faults, steps and lesson', () => {
    const query = encodeConfig(config)
    expect(decodeConfig(query)).toEqual(config)
    expect(decodeConfig(`?${query}`)).toEqual(config)
  })

  it('round-trips a check-mode run and a fresh one', () => {
    const check: LabConfig = { ...config, mode: 'check', crash: [], pause: '', clockStep: '' }
    delete check.lesson
    delete check.lang
    expect(decodeConfig(encodeConfig(check))).toEqual(check)
    const fresh: LabConfig = { ...check, mode: 'run', steps: [] }
    expect(encodeConfig(fresh)).toBe('scenario=election-bully&n=8&seed=42')
    expect(decodeConfig(encodeConfig(fresh))).toEqual(fresh)
  })

  it("opens schedule= (sd check's counterexample) as a check-mode run", () => {
    const c = decodeConfig('scenario=flood&n=3&schedule=t%3A1%231+drop%3Am%3A1%3E2%231')
    expect(c.mode).toBe('check')
    expect(c.steps).toEqual([
      { kind: 'happen', key: 't:1#1' },
      { kind: 'drop', key: 'm:1>2#1' },
    ])
  })

  it('opens the link sd check prints, as the playground writes it', () => {
    const schedule = 't:1#1 m:1>2#1 drop:m:1>3#1 drop:m:2>3#1'
    const link = labLink('flood', 3, schedule)
    expect(link.startsWith('?')).toBe(true)
    const c = decodeConfig(link.slice(1))
    expect(c).toMatchObject({ mode: 'check', scenario: 'flood', n: 3, seed: 1 })
    expect(formatSteps(c.steps)).toBe(schedule)
    // An empty shrunk schedule (the default order breaks it): a check-mode run with no steps.
    expect(decodeConfig(labLink('flood', 2, '').slice(1))).toMatchObject({
      mode: 'check',
      n: 2,
      steps: [],
    })
  })

  it('refuses a missing scenario and a bad number', () => {
    expect(() => decodeConfig('n=3')).toThrow(/scenario/)
    expect(() => decodeConfig('scenario=flood&seed=x')).toThrow(/seed/)
  })
})
