import { createRandom } from '@sd/transport'
import { checkHistory, checkHistoryAsync, registerModel } from '@sd/transport/history'
import { describe, expect, it } from 'vitest'
import { type RegOp, randomRegisterHistory } from './random-histories.js'

// Many concurrent writes of distinct values and reads nobody can explain: the search must try
// every order of the writes before it can say no. Bounded, it says `unknown` instead.
function hardHistory(writes: number): RegOp[] {
  const ops: RegOp[] = Array.from({ length: writes }, (_, i) => ({
    client: `w${i}`,
    input: { f: 'write', value: i },
    invokedAt: 0,
    completedAt: 100,
  }))
  ops.push({ client: 'r', input: { f: 'read' }, output: -1, invokedAt: 0, completedAt: 100 })
  return ops
}

describe('bounds', () => {
  it('answers unknown past maxSteps, with the steps it took', () => {
    const r = checkHistory(registerModel(), hardHistory(12), { maxSteps: 5_000, memoize: false })
    expect(r).toMatchObject({ verdict: 'unknown', reason: 'max-steps', steps: 5_000 })
  })

  it('answers unknown once the signal is aborted', () => {
    const controller = new AbortController()
    controller.abort()
    const r = checkHistory(registerModel(), hardHistory(12), { signal: controller.signal })
    expect(r).toMatchObject({ verdict: 'unknown', reason: 'aborted' })
  })

  it('the asynchronous check stops when a timer aborts its signal', async () => {
    const controller = new AbortController()
    let pauses = 0
    // Aborts at the third pause, as AbortSignal.timeout would once its timer got a turn.
    const pause = async () => {
      if (++pauses === 3) controller.abort()
    }
    const options = { signal: controller.signal, memoize: false, pause }
    const r = await checkHistoryAsync(registerModel(), hardHistory(14), options)
    expect(r).toMatchObject({ verdict: 'unknown', reason: 'aborted' })
    expect(pauses).toBe(3)
  })

  it('with its default pause, AbortSignal.timeout stops a search that would run for ages', async () => {
    const options = { signal: AbortSignal.timeout(20), memoize: false, maxSteps: 1e12 }
    const r = await checkHistoryAsync(registerModel(), hardHistory(16), options)
    expect(r).toMatchObject({ verdict: 'unknown', reason: 'aborted' })
  })

  it('the asynchronous check answers as the synchronous one', async () => {
    const history = randomRegisterHistory(createRandom('async'), 300)
    const sync = checkHistory(registerModel(), history)
    expect(await checkHistoryAsync(registerModel(), history)).toEqual(sync)
    const hard = hardHistory(8)
    expect(await checkHistoryAsync(registerModel(), hard)).toEqual(
      checkHistory(registerModel(), hard),
    )
  })

  it('the memo makes the same history quick to refute', () => {
    const r = checkHistory(registerModel(), hardHistory(12), { maxSteps: 1_000_000 })
    expect(r.verdict).toBe('not-linearizable')
    if (r.verdict === 'not-linearizable') expect(r.counterexample).toHaveLength(1)
  })

  it('a shrink cut short by the budget still says not-linearizable, not minimal', () => {
    const history = hardHistory(6)
    const full = checkHistory(registerModel(), history)
    expect(full.verdict).toBe('not-linearizable')
    const cut = checkHistory(registerModel(), history, { maxSteps: full.steps - 1 })
    expect(cut.verdict === 'unknown' || (cut.verdict === 'not-linearizable' && !cut.minimal)).toBe(
      true,
    )
  })

  it('refuses an operation that completes before it is invoked', () => {
    const bad = [{ client: 'a', input: { f: 'read' } as const, invokedAt: 5, completedAt: 4 }]
    expect(() => checkHistory(registerModel(), bad)).toThrow(/completes \(4\) before/)
  })

  it('a long random history is checked within a step budget proportional to its size', () => {
    const history = randomRegisterHistory(createRandom('long'), 2_000)
    const r = checkHistory(registerModel(), history, { maxSteps: 2_000_000 })
    expect(r.verdict).not.toBe('unknown')
  })
})
