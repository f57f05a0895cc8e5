/**
 * The stateful search counts terminal states by `Execution.terminalKey`, a hash of what
 * `fingerprint()` writes (each node's emitted events, who is crashed, who is paused), chained event
 * by event and cut back on every `load`. Over every state a bounded walk meets, going back and
 * forth through checkpoints, the two must tell the same states apart.
 */
import { describe, expect, it } from 'vitest'
import { Execution } from '../../src/explore/execution.js'
import type { ExploreOptions, ExploreScenario } from '../../src/explore/index.js'
import { causal, mutex } from './support/scenarios.js'

const MAX_STATES = 2000

function partitions(scenario: ExploreScenario, options: ExploreOptions) {
  const prints = new Set<string>()
  const keys = new Set<string>()
  const pairs = new Set<string>()
  let states = 0
  const walk = (exec: Execution, depth: number): void => {
    const print = exec.fingerprint()
    const key = exec.terminalKey()
    prints.add(print)
    keys.add(key)
    pairs.add(`${print} ${key}`)
    if (++states >= MAX_STATES || depth === 0 || exec.violation !== undefined) return
    const saved = exec.save()
    if (saved === undefined) throw new Error('the scenario must be restorable')
    for (const token of exec.options(options)) {
      if (states >= MAX_STATES) return
      exec.load(saved)
      exec.step(token)
      walk(exec, depth - 1)
    }
  }
  walk(new Execution(scenario, false, true), 30)
  return { prints: prints.size, keys: keys.size, pairs: pairs.size }
}

describe('terminalKey tells states apart as fingerprint() does', () => {
  const cases: Array<[string, ExploreScenario, ExploreOptions]> = [
    ['the mutex, a crash and a pause', mutex(3, true), { faults: { crash: 1, pause: 1 } }],
    ['causal broadcast, a loss and a crash', causal(false), { faults: { loss: 1, crash: 1 } }],
  ]
  for (const [name, scenario, options] of cases)
    it(name, () => {
      const { prints, keys, pairs } = partitions(scenario, options)
      // Enough distinct pasts for the comparison to mean something.
      expect(prints).toBeGreaterThan(20)
      expect(keys).toBe(prints)
      expect(pairs).toBe(prints)
    })
})
