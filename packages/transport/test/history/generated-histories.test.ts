import { createRandom } from '@sd/transport'
import { checkHistory, registerModel } from '@sd/transport/history'
import { describe, expect, it } from 'vitest'
import { linearizableRegisterHistory } from '../../../../test-support/register-histories.js'
import { forSeeds, seedList } from '../../../../test-support/seeds.js'

// Histories of a real register (linearizable by construction), long enough that the memo's
// compact sets span many words, with pending writes; then the same with one read made stale.
const SEEDS = seedList(30)

describe('histories of a real register', () => {
  it('are linearizable, with and without the memo and the parts', () => {
    forSeeds(SEEDS, (seed) => {
      const history = linearizableRegisterHistory(
        {
          operations: 300,
          clients: 4,
          keys: seed % 3 === 0 ? 3 : 1,
          pendingWrites: 0.05,
        },
        createRandom(`gen-${seed}`),
      )
      expect(checkHistory(registerModel(), history).verdict).toBe('linearizable')
      const plain = checkHistory(registerModel(), history, { memoize: false, maxSteps: 1_000_000 })
      expect(plain.verdict).not.toBe('not-linearizable')
    })
  })

  it('a read answered with a value overwritten long before is caught, and shrunk to a minimal history', () => {
    let checked = 0
    forSeeds(SEEDS, (seed) => {
      const history = linearizableRegisterHistory(
        {
          operations: 300,
          clients: 4,
          keys: 1,
          pendingWrites: 0.02,
        },
        createRandom(`stale-${seed}`),
      )
      const completedReads = history.flatMap((o, i) =>
        o.input.f === 'read' && o.completedAt !== undefined ? [i] : [],
      )
      const read = completedReads[completedReads.length - 1]!
      const firstWrite = history.find((o) => o.input.f === 'write' && o.completedAt !== undefined)!
      const input = firstWrite.input
      if (input.f !== 'write' || firstWrite.completedAt! > history[read]!.invokedAt - 200) return
      const stale = history.map((o, i) => (i === read ? { ...o, output: input.value } : o))
      checked++
      const r = checkHistory(registerModel(), stale)
      expect(r.verdict).toBe('not-linearizable')
      if (r.verdict !== 'not-linearizable') return
      expect(r.minimal).toBe(true)
      expect(r.counterexample).toContainEqual(stale[read])
      expect(checkHistory(registerModel(), r.counterexample).verdict).toBe('not-linearizable')
      // 1-minimal by units: a write with the reads of its value.
      const model = registerModel()
      const unit = (o: (typeof stale)[number]) => model.unitOf!(o.input, o.output) ?? o
      for (const u of new Set(r.counterexample.map(unit))) {
        const without = r.counterexample.filter((o) => unit(o) !== u)
        expect(checkHistory(model, without).verdict).toBe('linearizable')
      }
    })
    expect(checked).toBeGreaterThan(SEEDS.length / 2)
  })
})
