import { checks } from '@sd/playground/src/check/index.js'
import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { replay } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { defaultConfig, type LabConfig } from '../src/engine/config.js'
import { LabRun } from '../src/engine/lab-run.js'
import { captureScenario } from '../src/engine/sources.js'
import { AUTO, parseSteps, type Step } from '../src/engine/steps.js'

const MAX = 20_000

function sdRunTrace(name: string, crash: number[] = []) {
  const s = scenarios.find((x) => x.name === name)!
  return s.run({ n: s.defaultN, seed: 1, crash }).net.trace
}

describe('run mode: a playground scenario as sd run runs it', () => {
  it.each([
    'flood',
    'causal-order',
    'mutex-ricart-agrawala',
    'deadlock-cmh',
    'election-ring',
    // Two passes of one seed each (the first measures π): the lab takes the second, sd run's.
    'temporal-order',
    'temporal-order-late',
    'berkeley',
    'vector',
  ])('%s left to itself is sd run, event for event', (name) => {
    const run = new LabRun(defaultConfig(name, 0))
    run.run(MAX, run.horizon)
    expect(run.net.trace).toEqual(sdRunTrace(name))
  })

  it('a crash given as sd run --crash takes effect as there', () => {
    const run = new LabRun({ ...defaultConfig('flood', 0), crash: ['4'] })
    run.run(MAX)
    expect(run.net.trace).toEqual(sdRunTrace('flood', [4]))
  })

  it('choosing another message than the next is what SimNetwork.take does with it', () => {
    const config = defaultConfig('flood', 0)
    const run = new LabRun(config)
    run.run(12)
    const natural = run.net.choices().reduce((a, b) => (b.t < a.t ? b : a))
    const other = run.net.choices().find((c) => c.kind === 'deliver' && c.key !== natural.key)!
    expect(other).toBeDefined()
    run.choose({ kind: 'happen', key: other.key })
    run.run(30)
    // The same by hand: the scenario's network, twelve steps of its loop, the take, thirty more.
    const { net } = captureScenario(config)
    for (let i = 0; i < 12; i++) net.step()
    expect(net.take(other.key, 'happen')).toBe(true)
    for (let i = 0; i < 30; i++) net.step()
    expect(run.net.trace).toEqual(net.trace)
    // And it changed the run: the message arrived before what was due first.
    expect(run.net.trace).not.toEqual(
      new LabRun({ ...config, steps: Array(43).fill(AUTO) }).net.trace,
    )
  })

  it('back then forward shows the same trace; a branch keeps the old line', () => {
    const run = new LabRun(defaultConfig('election-bully', 0))
    run.run(60)
    const at40 = run.traceAt(40)
    const end = run.traceAt()
    for (let i = 0; i < 25; i++) run.back()
    expect(run.position).toBe(35)
    for (let i = 0; i < 5; i++) run.forward()
    expect(run.traceAt()).toEqual(at40)
    run.goTo(run.length)
    expect(run.traceAt()).toEqual(end)
    // Crash node 2 at step 40: the same as a fresh run of those steps.
    run.goTo(40)
    const old = run.stepsText()
    run.choose({ kind: 'crash', node: '2' })
    run.run(20)
    expect(run.branches).toEqual([old])
    // Rewound from the checkpoint of the setup (step 0: the next is at 200), not built again.
    expect(run.stats).toEqual({ rebuilds: 0, restores: 1, stepsReplayed: 40 })
    const fresh = new LabRun({ ...run.config, steps: parseSteps(run.stepsText()) })
    expect(fresh.net.trace).toEqual(run.net.trace)
    expect(fresh.frameAt(fresh.length)).toEqual(run.frameAt(run.length))
  })

  it('re-execution from the URL steps gives the same frames at every step', () => {
    const steps: Step[] = [
      ...Array(5).fill(AUTO),
      { kind: 'crash', node: '3' },
      ...Array(10).fill(AUTO),
      { kind: 'cut', a: '1', b: '2' },
      ...Array(10).fill(AUTO),
      { kind: 'restart', node: '3' },
      { kind: 'hold', node: '1' },
      ...Array(10).fill(AUTO),
      { kind: 'resume', node: '1' },
      ...Array(10).fill(AUTO),
    ]
    const config: LabConfig = { ...defaultConfig('mutex-ricart-agrawala', 0), steps }
    const a = new LabRun(config)
    const b = new LabRun(config)
    expect(a.net.trace).toEqual(b.net.trace)
    for (let i = 0; i <= a.length; i++) expect(a.frameAt(i)).toEqual(b.frameAt(i))
    expect(a.net.trace.some((e) => e.type === 'crash')).toBe(true)
    expect(a.net.trace.some((e) => e.type === 'pause')).toBe(true)
  })
})

describe('check mode: sd check scenarios and counterexamples', () => {
  const schedule = 't:1#1 m:1>2#1 drop:m:1>3#1 drop:m:2>3#1'

  it('opens a counterexample as sd check replays it, the violation marked at its step', () => {
    const config: LabConfig = {
      ...defaultConfig('flood', 3),
      mode: 'check',
      steps: parseSteps(schedule),
    }
    const run = new LabRun(config)
    run.run(100)
    const first = run.firstViolation()
    expect(first).toBeDefined()
    for (let i = 0; i < first!; i++) expect(run.frameAt(i).violation).toBeUndefined()
    const spec = checks.find((c) => c.scenario === 'flood')!
    const replayed = replay(spec.build(3), schedule)
    expect(run.frameAt(first!).violation).toBe(replayed.violation)
    expect(run.traceAt(first!)).toEqual(replayed.net.trace)
  })

  it('rewinds from a checkpoint and gets what re-execution from the setup gets', () => {
    // causal-order's protocols have snapshot() and restore(): its network can be rewound
    // (test/rewind.test.ts takes every spec and scenario that can, at every step).
    const config: LabConfig = { ...defaultConfig('causal-order', 0), mode: 'check' }
    const run = new LabRun(config)
    expect(run.run(100)).toBe(9)
    expect(run.checkpointCount).toBe(1)
    run.goTo(5)
    run.branchAt(5)
    const choices = run.net.choices()
    expect(choices.length).toBeGreaterThan(0)
    expect(run.stats).toEqual({ rebuilds: 0, restores: 1, stepsReplayed: 5 })
    run.choose({ kind: 'happen', key: choices[choices.length - 1]!.key })
    run.run(100)
    const fresh = new LabRun({ ...config, steps: parseSteps(run.stepsText()) })
    expect(fresh.net.trace).toEqual(run.net.trace)
    for (let i = 0; i <= fresh.length; i++) expect(fresh.frameAt(i)).toEqual(run.frameAt(i))
  })
})
