/**
 * The stateful explorer keys its visited set by `Execution.keyHash`, mixed from cached hashes of
 * the state's parts; `stateKey` hashes the state's canonical text. Over every state a bounded walk
 * meets (faults included: crashes, pauses with a backlog, losses, duplicates, clock steps,
 * reordering links), the two must tell the same states apart: as many distinct keys as hashes,
 * and as many as distinct pairs of both.
 */
import { describe, expect, it } from 'vitest'
import {
  changRoberts,
  flood,
  pingPong,
  vectorBroadcast,
} from '../../../../test-support/explore-protocols.js'
import { Execution } from '../../src/explore/execution.js'
import type { ExploreOptions, ExploreScenario } from '../../src/explore/index.js'
import type { Token } from '../../src/explore/token.js'
import { causal, ids, launch, mutex } from './support/scenarios.js'

const MAX_STATES = 1500
const quiet = () => undefined

/** Distinct canonical keys, distinct hashes and distinct pairs over a bounded walk. */
function partitions(scenario: ExploreScenario, options: ExploreOptions) {
  const keys = new Set<string>()
  const hashes = new Set<string>()
  const pairs = new Set<string>()
  const record = (exec: Execution): boolean => {
    const key = exec.stateKey()
    const hash = { hi: 0, lo: 0 }
    expect(exec.keyHash(hash)).toBe(key !== undefined)
    const fast = `${hash.hi}:${hash.lo}`
    const fresh = !keys.has(key!)
    keys.add(key!)
    hashes.add(fast)
    pairs.add(`${key} ${fast}`)
    return fresh
  }
  const replay = (tokens: readonly Token[]) => {
    const exec = new Execution(scenario, false, true)
    for (const t of tokens) exec.step(t)
    return exec
  }
  const walk = (exec: Execution, depth: number): void => {
    if (!record(exec) || keys.size >= MAX_STATES || depth === 0) return
    if (exec.violation !== undefined) return
    const prefix = [...exec.tokens]
    const saved = exec.save()
    for (const token of exec.options(options)) {
      if (keys.size >= MAX_STATES) return
      if (saved !== undefined) exec.load(saved)
      const child = saved === undefined ? replay(prefix) : exec
      child.step(token)
      walk(child, depth - 1)
    }
  }
  walk(new Execution(scenario, false, true), 40)
  return { keys: keys.size, hashes: hashes.size, pairs: pairs.size }
}

const cases: Array<[string, ExploreScenario, ExploreOptions]> = [
  ['the mutex, a crash and a pause', mutex(3, true), { faults: { crash: 1, pause: 1 } }],
  ['causal broadcast, a loss and a crash', causal(false), { faults: { loss: 1, crash: 1 } }],
  [
    'flood, a loss and a duplicate',
    { setup: launch(ids(3), flood(true)), invariant: quiet },
    { faults: { loss: 1, duplicate: 1 } },
  ],
  [
    'ping-pong, a clock step and a pause',
    { setup: launch(ids(3), pingPong(2)), invariant: quiet },
    { faults: { clockStep: 1, pause: 1 }, pauseMs: 60, timers: 'any-order' },
  ],
  [
    'vector broadcast on reordering links, a duplicate',
    {
      setup(net) {
        net.launch(ids(3), vectorBroadcast())
        for (const id of ids(3)) net.request(id, { payload: `${id}` })
      },
      invariant: quiet,
      fifo: false,
    },
    { faults: { duplicate: 1 } },
  ],
  [
    'Chang-Roberts, a forgetful history',
    { setup: launch(ids(4), changRoberts(4, true)), invariant: quiet, history: () => null },
    {},
  ],
]

describe('the explorer state hash tells states apart as the canonical key does', () => {
  for (const [name, scenario, options] of cases) {
    it(name, () => {
      const { keys, hashes, pairs } = partitions(scenario, options)
      expect(keys).toBeGreaterThan(20)
      expect(hashes).toBe(keys)
      expect(pairs).toBe(keys)
    })
  }
})
