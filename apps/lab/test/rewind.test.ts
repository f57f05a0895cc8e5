/**
 * Rewinding from a checkpoint (the network's and the scenario's side state, saved together) gives
 * exactly what re-execution from the setup gives: at every position of a line with crashes,
 * restarts, pauses and cut links, a branch rewound from its nearest checkpoint and carried on
 * equals a fresh run of the same steps, trace, frames and the scenario's side state.
 */

import { checks } from '@sd/playground/src/check/index.js'
import { scenarios } from '@sd/playground/src/scenarios/index.js'
import { sideStateOf } from '@sd/playground/src/side-state.js'
import { describe, expect, it } from 'vitest'
import { defaultConfig, type LabConfig } from '../src/engine/config.js'
import { LabRun } from '../src/engine/lab-run.js'
import { AUTO, parseSteps, type Step } from '../src/engine/steps.js'

/** Scenarios whose protocols all have `restore()` and which keep their side state. */
const REWINDING = [
  'flood',
  'lamport',
  'lamport-pqr',
  'make',
  'vector',
  'total-order',
  'causal-order',
  'mutex-centralized',
  'mutex-ricart-agrawala',
  'mutex-lamport',
  'mutex-token-ring',
  'mutex-maekawa',
  'mutex-quorum',
  'election-bully',
  'election-ring',
  'election-chang-roberts',
  'election-yoyo',
  'deadlock-cmh',
  'deadlock-centralized',
  'deadlock-prevention',
  'cristian',
  'berkeley',
  'ntp',
  'temporal-order',
  'temporal-order-late',
]

/** `sd check` specs whose protocols all have `restore()` (the others lack it). */
const REWINDING_CHECKS = [
  'causal-order',
  'total-order',
  'mutex-ricart-agrawala',
  'mutex-lamport',
  'mutex-maekawa',
  'mutex-quorum',
  'mutex-token-ring',
  'mutex-centralized',
  'mutex-centralized-failover',
  'election-chang-roberts',
  'election-bully',
  'election-ring',
  'election-yoyo',
  'election-majority',
  'deadlock-cmh',
  'deadlock-cmh-graph',
  'deadlock-centralized',
  'deadlock-wait-die',
  'deadlock-wound-wait',
  'cristian',
  'berkeley',
  'ntp',
  'temporal-order',
]

const auto = (k: number): Step[] => Array(k).fill(AUTO)

/** A line through every kind of fault, on the scenario's own node ids. */
function faultyLine(name: string, mode: LabConfig['mode'] = 'run'): LabConfig {
  const ids = [...new LabRun({ ...defaultConfig(name, 0), mode }).ids.keys()]
  const [x, y, z] = [ids[1]!, ids[2] ?? ids[0]!, ids[0]!]
  const steps: Step[] = [
    ...auto(6),
    { kind: 'crash', node: x },
    ...auto(5),
    { kind: 'cut', a: y, b: z },
    ...auto(5),
    { kind: 'restart', node: x },
    { kind: 'hold', node: y },
    ...auto(5),
    { kind: 'resume', node: y },
    { kind: 'pause', node: z, ms: 3 },
    ...auto(5),
    { kind: 'mend', a: y, b: z },
    ...auto(20),
  ]
  return { ...defaultConfig(name, 0), mode, steps }
}

const EVERY = 4

describe('rewinding a playground scenario from its nearest checkpoint', () => {
  it.each(REWINDING)('%s: a branch at any step equals re-execution from the setup', (name) => {
    const config = faultyLine(name)
    const line = new LabRun(config, { checkpointEvery: EVERY })
    const length = line.length
    expect(line.checkpointCount).toBe(Math.floor(length / EVERY) + 1)
    expect(line.net.trace.some((e) => e.type === 'crash')).toBe(true)
    for (let p = 0; p < length; p++) {
      const run = new LabRun(config, { checkpointEvery: EVERY })
      run.goTo(p)
      run.branchAt(p)
      // From the checkpoint at or before p, never from the setup.
      expect(run.stats.rebuilds).toBe(0)
      expect(run.stats.stepsReplayed).toBe(p % EVERY)
      // Brought back, the side state is a fresh run's of the same steps (not only once carried on).
      const upTo = new LabRun({ ...config, steps: parseSteps(run.stepsText()) })
      expect(sideStateOf(run.net)!.save()).toEqual(sideStateOf(upTo.net)!.save())
      // Something other than the run's own next event, then the run's own way.
      const choices = run.net.choices()
      if (choices.length > 0) run.choose({ kind: 'happen', key: choices[choices.length - 1]!.key })
      run.run(10)
      const fresh = new LabRun({ ...config, steps: parseSteps(run.stepsText()) })
      expect(run.net.trace).toEqual(fresh.net.trace)
      for (let i = 0; i <= fresh.length; i++) expect(run.frameAt(i)).toEqual(fresh.frameAt(i))
      expect(sideStateOf(run.net)!.save()).toEqual(sideStateOf(fresh.net)!.save())
    }
  })

  it('the other scenarios re-execute from the setup (a protocol without restore(), or side state not kept)', () => {
    for (const { name } of scenarios.filter((s) => !REWINDING.includes(s.name))) {
      const run = new LabRun(faultyLine(name), { checkpointEvery: EVERY })
      expect(run.checkpointCount, name).toBe(0)
      run.goTo(10)
      run.branchAt(10)
      expect(run.stats, name).toEqual({ rebuilds: 1, restores: 0, stepsReplayed: 10 })
    }
  })

  it('a saved side state that is not one save() gave is refused', () => {
    const run = new LabRun(defaultConfig('mutex-ricart-agrawala', 0))
    const side = sideStateOf(run.net)!
    const saved = side.save() as Record<string, unknown>
    expect(() => side.restore({ ...saved, asked: [[1, 2]] })).toThrow(/asked/)
    expect(() => side.restore({ ...saved, waiting: [[1, [99]]] })).toThrow(/index/)
    expect(() => side.restore(null)).toThrow()
    expect(() => side.restore(saved)).not.toThrow()
  })

  it("a random execution's saved side state is refused when it is not counts the run holds", () => {
    const run = new LabRun(defaultConfig('lamport', 0))
    run.run(30)
    const side = sideStateOf(run.net)!
    const saved = side.save() as { events: number; sends: number }
    expect(saved.events).toBeGreaterThan(0)
    expect(() => side.restore({ ...saved, events: saved.events + 1 })).toThrow(/events up to/)
    expect(() => side.restore({ ...saved, sends: -1 })).toThrow(/sends up to/)
    expect(() => side.restore(null)).toThrow()
    expect(() => side.restore(saved)).not.toThrow()
  })
})

describe('rewinding an sd check spec from its nearest checkpoint', () => {
  it.each(REWINDING_CHECKS)(
    '%s: a branch at any step equals re-execution from the setup',
    (name) => {
      const config = faultyLine(name, 'check')
      const length = new LabRun(config).length
      for (let p = 0; p < length; p++) {
        const run = new LabRun(config, { checkpointEvery: EVERY })
        run.goTo(p)
        run.branchAt(p)
        expect(run.stats.rebuilds).toBe(0)
        expect(run.stats.stepsReplayed).toBe(p % EVERY)
        const choices = run.net.choices()
        if (choices.length > 0)
          run.choose({ kind: 'happen', key: choices[choices.length - 1]!.key })
        run.run(10)
        const fresh = new LabRun({ ...config, steps: parseSteps(run.stepsText()) })
        expect(run.net.trace).toEqual(fresh.net.trace)
        expect(run.emitted()).toEqual(fresh.emitted())
        for (let i = 0; i <= fresh.length; i++) expect(run.frameAt(i)).toEqual(fresh.frameAt(i))
      }
    },
  )

  it('the other specs re-execute from the setup (a protocol without restore())', () => {
    const others = checks.map((c) => c.scenario).filter((s) => !REWINDING_CHECKS.includes(s))
    expect(others.length).toBeGreaterThan(0)
    for (const name of others) {
      const run = new LabRun(faultyLine(name, 'check'), { checkpointEvery: EVERY })
      expect(run.checkpointCount, name).toBe(0)
      run.goTo(10)
      run.branchAt(10)
      expect(run.stats, name).toEqual({ rebuilds: 1, restores: 0, stepsReplayed: 10 })
    }
  })
})
