/**
 * The linearizability checker of @sd/transport/history on register histories that are
 * linearizable by construction (lib/history-gen.ts): the time to check 10,000 operations of 5
 * clients on one register, against the same search without its memo; and what P-compositionality
 * saves on a history of 10 keys with pending writes, against one search over all the keys at once
 * (a model whose state holds every key), bounded by a step budget. Medians of SD_HISTORY_RUNS
 * (default 5) runs.
 */
import { createRandom } from '@sd/transport'
import {
  type CheckOptions,
  checkHistory,
  combineHashes,
  hashValue,
  type Model,
  type RegisterInput,
  type RegisterOutput,
  registerModel,
} from '@sd/transport/history'
import {
  linearizableRegisterHistory,
  type RegisterOp,
} from '../../test-support/register-histories.js'
import { median } from './lib/measure.js'
import type { BenchResult } from './lib/result.js'

const RUNS = Number(process.env.SD_HISTORY_RUNS ?? 5)
const log = (line: string) => console.error(`  history: ${line}`)

function timed<S>(
  model: Model<S, RegisterInput<number | null>, RegisterOutput<number | null>>,
  history: RegisterOp[],
  options: CheckOptions,
) {
  const runs = Array.from({ length: RUNS }, () => {
    const started = performance.now()
    const result = checkHistory(model, history, options)
    return { ms: performance.now() - started, result }
  })
  return { ms: median(runs.map((r) => r.ms)), result: runs[0]!.result }
}

/** Every key's register in one state: the model a checker without P-compositionality needs. */
function allKeysModel(
  keys: number,
): Model<(number | null)[], RegisterInput<number | null>, RegisterOutput<number | null>> {
  const one = registerModel()
  return {
    name: 'registers',
    init: () => new Array<number | null>(keys + 1).fill(null),
    step(state, input, output) {
      const k = Number(input.key ?? 0)
      const r = one.step(state[k]!, input, output)
      if (!r.ok || Object.is(r.state, state[k])) return { ok: r.ok, state }
      const next = state.slice()
      next[k] = r.state
      return { ok: true, state: next }
    },
    equal: (a, b) => a.every((v, i) => Object.is(v, b[i])),
    hash: (s) => combineHashes(...s.map(hashValue)),
  }
}

export default async function historyBench(): Promise<BenchResult[]> {
  const single = linearizableRegisterHistory(
    {
      operations: 10_000,
      clients: 5,
      keys: 1,
      pendingWrites: 0.002,
    },
    createRandom('bench-10k'),
  )
  const fast = timed(registerModel(), single, {})
  const noMemo = timed(registerModel(), single, { memoize: false })
  for (const r of [fast, noMemo])
    if (r.result.verdict !== 'linearizable') throw new Error(`10k history: ${r.result.verdict}`)
  log(
    `10,000 operations, 5 clients, one register: ${fast.ms.toFixed(0)} ms (${fast.result.steps} steps); without the memo ${noMemo.ms.toFixed(0)} ms (${noMemo.result.steps} steps)`,
  )

  // One read near the end made stale: the search must rule out every order before it.
  const late = single.findIndex(
    (o, i) => i > 9_000 && o.input.f === 'read' && o.completedAt !== undefined,
  )
  const stale = single.map((o, i) => (i === late ? { ...o, output: 1 } : o))
  const refute = timed(registerModel(), stale, { shrink: false })
  const refuteShrunk = timed(registerModel(), stale, {})
  const refuteNoMemo = timed(registerModel(), stale, {
    shrink: false,
    memoize: false,
    maxSteps: 5_000_000,
  })
  if (
    refute.result.verdict !== 'not-linearizable' ||
    refuteShrunk.result.verdict !== 'not-linearizable'
  )
    throw new Error('the stale read was not caught')
  const counterexample = refuteShrunk.result.counterexample.length
  log(
    `the same with one stale read: refuted in ${refute.ms.toFixed(0)} ms (${refute.result.steps} steps), ${refuteShrunk.ms.toFixed(0)} ms with the shrinking to ${counterexample} operation(s); without the memo ${refuteNoMemo.result.verdict} after ${refuteNoMemo.result.steps} steps`,
  )

  const keyed = linearizableRegisterHistory(
    {
      operations: 10_000,
      clients: 5,
      keys: 10,
      pendingWrites: 0.01,
    },
    createRandom('bench-keyed'),
  )
  const MAX_STEPS = 2_000_000
  const parts = timed(registerModel(), keyed, { maxSteps: MAX_STEPS })
  const whole = timed(allKeysModel(10), keyed, { maxSteps: MAX_STEPS })
  if (parts.result.verdict !== 'linearizable')
    throw new Error(`keyed history: ${parts.result.verdict}`)
  log(
    `10,000 operations on 10 keys, 1% pending writes: by key ${parts.ms.toFixed(0)} ms (${parts.result.steps} steps); all keys at once ${whole.result.verdict} after ${whole.ms.toFixed(0)} ms (${whole.result.steps} steps)`,
  )

  return [
    {
      name: 'history.register-10k.check',
      unit: 'ms',
      value: Math.round(fast.ms),
      lowerIsBetter: true,
      baseline: { name: 'the same search without the memo', value: Math.round(noMemo.ms) },
      params: { operations: 10_000, clients: 5, keys: 1, pendingWrites: 0.002, runs: RUNS },
      extra: { steps: fast.result.steps, stepsWithoutMemo: noMemo.result.steps },
    },
    {
      // No baseline: without the memo the search does not finish, so no ratio would be true.
      name: 'history.register-10k.refute',
      unit: 'ms',
      value: Math.round(refute.ms),
      lowerIsBetter: true,
      params: { operations: 10_000, clients: 5, keys: 1, staleReadAt: late, runs: RUNS },
      extra: {
        steps: refute.result.steps,
        withShrinkMs: Math.round(refuteShrunk.ms),
        withShrinkSteps: refuteShrunk.result.steps,
        counterexampleOperations: counterexample,
        withoutMemo: `${refuteNoMemo.result.verdict} after ${refuteNoMemo.result.steps} steps (${Math.round(refuteNoMemo.ms)} ms)`,
      },
    },
    {
      name: 'history.keyed-10k.partition',
      unit: 'ms',
      value: Math.round(parts.ms),
      lowerIsBetter: true,
      baseline: {
        name: `one search over every key (maxSteps ${MAX_STEPS})`,
        value: Math.round(whole.ms),
      },
      params: { operations: 10_000, clients: 5, keys: 10, pendingWrites: 0.01, runs: RUNS },
      extra: {
        steps: parts.result.steps,
        parts: parts.result.parts,
        wholeVerdict: whole.result.verdict,
        wholeSteps: whole.result.steps,
      },
    },
  ]
}
