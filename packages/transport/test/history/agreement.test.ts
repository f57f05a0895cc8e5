import { createRandom } from '@sd/transport'
import {
  checkHistory,
  counterModel,
  lockModel,
  type Model,
  type Operation,
  registerModel,
} from '@sd/transport/history'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'
import { bruteForceLinearizable } from './brute-force.js'
import {
  randomCounterHistory,
  randomLockHistory,
  randomRegisterHistory,
} from './random-histories.js'

// The fast checker against the definition (brute-force.ts) on small random histories, about half
// of them linearizable; and every counterexample it shrinks to checked the slow way: it fails,
// it keeps each unit of the model whole (a grant with its release, a write with the reads of its
// value), and dropping any one unit makes it pass.
const SEEDS = seedList(400)

function agrees<S, I, O>(model: Model<S, I, O>, history: Operation<I, O>[]) {
  const fast = checkHistory(model, history)
  const slow = bruteForceLinearizable(model, history)
  expect(fast.verdict, JSON.stringify(history)).toBe(slow ? 'linearizable' : 'not-linearizable')
  // Without the memo and without the parts, the same answer.
  const plain = checkHistory(model, history, { memoize: false, partition: false, shrink: false })
  expect(plain.verdict).toBe(fast.verdict)
  if (fast.verdict !== 'not-linearizable') return { linearizable: true }
  expect(fast.minimal).toBe(true)
  const c = fast.counterexample
  expect(bruteForceLinearizable(model, c), 'the counterexample fails').toBe(false)
  const unit = (o: Operation<I, O>) => model.unitOf?.(o.input, o.output) ?? o
  for (const u of new Set(c.map(unit))) {
    const whole = history.filter((o) => unit(o) === u && sameKey(o, c[0]!))
    expect(
      c.filter((o) => unit(o) === u),
      'a unit kept whole',
    ).toEqual(whole)
    const without = c.filter((o) => unit(o) !== u)
    expect(bruteForceLinearizable(model, without), `dropping unit ${String(u)} passes`).toBe(true)
  }
  return { linearizable: false }
}

/** Operations of one part (the models here split by key). */
function sameKey(a: Operation<unknown, unknown>, b: Operation<unknown, unknown>): boolean {
  return (a.input as { key?: unknown }).key === (b.input as { key?: unknown }).key
}

describe('the checker agrees with the brute-force definition', () => {
  const cases = [
    { name: 'register (read, write, cas)', model: registerModel(), make: randomRegisterHistory },
    { name: 'counter', model: counterModel(), make: randomCounterHistory },
    { name: 'lock with leases', model: lockModel(), make: randomLockHistory },
  ] as const
  for (const { name, model, make } of cases) {
    it(`${name}: ${SEEDS.length} random histories of up to 7 operations`, () => {
      let linearizable = 0
      forSeeds(SEEDS, (seed) => {
        const random = createRandom(`history-${name}-${seed}`)
        const history = make(random, random.int(1, 7)) as Operation<unknown, unknown>[]
        if (agrees(model as Model<unknown, unknown, unknown>, history).linearizable) linearizable++
      })
      // Both answers occur, so the agreement means something.
      expect(linearizable).toBeGreaterThan(SEEDS.length / 10)
      expect(linearizable).toBeLessThan(SEEDS.length * 0.9)
    })
  }
})
