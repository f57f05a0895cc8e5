import {
  type CounterInput,
  type CounterOutput,
  checkHistory,
  counterModel,
  type LockInput,
  type LockOutput,
  lockModel,
  type Operation,
  type RegisterInput,
  type RegisterOutput,
  registerModel,
} from '@sd/transport/history'
import { describe, expect, it } from 'vitest'

type RegOp = Operation<RegisterInput<number | null>, RegisterOutput<number | null>>
const reg = (
  client: string,
  invokedAt: number,
  completedAt: number | undefined,
  input: RegisterInput<number | null>,
  output?: RegisterOutput<number | null>,
): RegOp => ({
  client,
  input,
  invokedAt,
  ...(completedAt === undefined ? {} : { completedAt, output }),
})
const write = (c: string, a: number, b: number | undefined, value: number) =>
  reg(c, a, b, { f: 'write', value })
const read = (c: string, a: number, b: number | undefined, value: number | null) =>
  reg(c, a, b, { f: 'read' }, value)
const register = registerModel()

describe('the register', () => {
  it('accepts reads of the latest write, and of either value while a write overlaps', () => {
    const history = [
      write('a', 0, 10, 1),
      read('b', 5, 6, null),
      read('c', 7, 8, 1),
      read('b', 11, 12, 1),
    ]
    expect(checkHistory(register, history).verdict).toBe('linearizable')
  })

  it('catches a stale read: the old value after a newer write completed', () => {
    const history = [write('a', 0, 1, 1), write('a', 2, 3, 2), read('b', 4, 5, 1)]
    const r = checkHistory(register, history)
    expect(r.verdict).toBe('not-linearizable')
    if (r.verdict !== 'not-linearizable') return
    // Minimal by units: the read stands with the write of its value (alone it would read a value
    // never written, which says nothing of this history), and the newer write cannot go.
    expect(r.counterexample).toEqual(history)
    expect(r.stuck).toBe(history[2])
    expect(r.minimal).toBe(true)
    expect(r.longestPrefix.length).toBeGreaterThanOrEqual(1)
  })

  it('catches a lost update: two cas from the same value both succeeding', () => {
    const cas = (c: string, a: number, b: number, from: number | null, to: number) =>
      reg(c, a, b, { f: 'cas', from, to }, true)
    const history = [cas('a', 0, 5, null, 1), cas('b', 1, 6, null, 1)]
    expect(checkHistory(register, history).verdict).toBe('not-linearizable')
    const failed = reg('b', 1, 6, { f: 'cas', from: null, to: 1 }, false)
    expect(checkHistory(register, [history[0]!, failed]).verdict).toBe('linearizable')
  })

  it('a pending write may have taken effect (a later read sees it) or not (it does not)', () => {
    const pending = write('a', 0, undefined, 1)
    expect(checkHistory(register, [pending, read('b', 5, 6, 1)]).verdict).toBe('linearizable')
    expect(checkHistory(register, [pending, read('b', 5, 6, null)]).verdict).toBe('linearizable')
    // But not both: once seen, it cannot be unseen.
    const flip = [pending, read('b', 5, 6, 1), read('b', 7, 8, null)]
    expect(checkHistory(register, flip).verdict).toBe('not-linearizable')
    // Nor before it was invoked.
    const early = [read('b', 0, 1, 1), write('a', 2, undefined, 1)]
    expect(checkHistory(register, early).verdict).toBe('not-linearizable')
  })

  it('checks each key on its own, and finds the bad key', () => {
    const w = (k: string, a: number, b: number, value: number) =>
      reg('a', a, b, { f: 'write', value, key: k })
    const r = (k: string, a: number, b: number, value: number) =>
      reg('b', a, b, { f: 'read', key: k }, value)
    const history = [w('x', 0, 1, 1), w('y', 0, 1, 2), r('y', 2, 3, 2), r('x', 2, 3, 2)]
    const result = checkHistory(register, history)
    expect(result.parts).toBe(2)
    expect(result.verdict).toBe('not-linearizable')
    if (result.verdict === 'not-linearizable') expect(result.counterexample).toEqual([history[3]])
  })
})

describe('the counter', () => {
  const op = (
    c: string,
    a: number,
    b: number | undefined,
    input: CounterInput,
    output?: CounterOutput,
  ) => ({
    client: c,
    input,
    invokedAt: a,
    ...(b === undefined ? {} : { completedAt: b, output }),
  })
  const add = (c: string, a: number, b: number | undefined) => op(c, a, b, { f: 'add', delta: 1 })
  const read = (c: string, a: number, b: number, value: number) => op(c, a, b, { f: 'read' }, value)

  it('catches a lost update: two completed adds, then a read of one', () => {
    const history = [add('a', 0, 2), add('b', 1, 3), read('c', 4, 5, 1)]
    const r = checkHistory(counterModel(), history)
    expect(r.verdict).toBe('not-linearizable')
    // Every operation is needed to show it.
    if (r.verdict === 'not-linearizable') expect(r.counterexample).toEqual(history)
    expect(checkHistory(counterModel(), [...history.slice(0, 2), read('c', 4, 5, 2)]).verdict).toBe(
      'linearizable',
    )
  })

  it('a pending add counts or not, but at most once', () => {
    const history = [add('a', 0, undefined), read('b', 1, 2, 0), read('b', 3, 4, 1)]
    expect(checkHistory(counterModel(), history).verdict).toBe('linearizable')
    expect(checkHistory(counterModel(), [...history, read('b', 5, 6, 2)]).verdict).toBe(
      'not-linearizable',
    )
  })
})

describe('the lock with leases', () => {
  const lock = lockModel()
  const acquire = (client: string, a: number, b: number, token: number, leaseEnd: number) => ({
    client,
    input: { f: 'acquire', client, grantedBy: b } as LockInput,
    output: { token, leaseEnd } as LockOutput,
    invokedAt: a,
    completedAt: b,
  })
  const release = (client: string, a: number, b: number, token: number) => ({
    client,
    input: { f: 'release', client, token } as LockInput,
    invokedAt: a,
    completedAt: b,
  })

  it('accepts a handover by release and one by expiry', () => {
    const history = [
      acquire('a', 0, 1, 1, 100),
      release('a', 10, 11, 1),
      acquire('b', 12, 13, 2, 50),
      acquire('c', 60, 61, 3, 200), // b's lease ended at 50
      release('b', 70, 71, 2), // too late: changes nothing
    ]
    expect(checkHistory(lock, history).verdict).toBe('linearizable')
  })

  it('catches two holders at once', () => {
    const history = [acquire('a', 0, 1, 1, 100), acquire('b', 10, 11, 2, 200)]
    const r = checkHistory(lock, history)
    expect(r.verdict).toBe('not-linearizable')
    // Overlapping acquires are fine when the second one's lease starts after the first's.
    expect(
      checkHistory(lock, [acquire('a', 0, 1, 1, 100), acquire('b', 10, 101, 2, 200)]).verdict,
    ).toBe('linearizable')
  })

  it('catches a token going backwards', () => {
    const history = [acquire('a', 0, 1, 2, 10), release('a', 2, 3, 2), acquire('b', 4, 5, 1, 20)]
    expect(checkHistory(lock, history).verdict).toBe('not-linearizable')
  })

  it('a pending release may have freed the lock, or not', () => {
    const pendingRelease = { ...release('a', 2, 3, 1), completedAt: undefined }
    const history = [acquire('a', 0, 1, 1, 100), pendingRelease, acquire('b', 10, 11, 2, 200)]
    expect(checkHistory(lock, history).verdict).toBe('linearizable')
    // Without the release, b's grant overlaps a's lease.
    expect(checkHistory(lock, [history[0]!, history[2]!]).verdict).toBe('not-linearizable')
  })

  it('with stray releases ignored, two holders shrink to their grants, not to a lone release', () => {
    // a's lease ends at 5, c holds from 7 and a releases late; b is granted while c holds.
    const history = [
      acquire('a', 0, 1, 1, 5),
      acquire('c', 6, 7, 2, 100),
      release('a', 8, 9, 1),
      acquire('b', 10, 11, 3, 200),
    ]
    const strict = checkHistory(lock, history)
    const lenient = checkHistory(lockModel({ strayRelease: 'ignore' }), history)
    expect(strict.verdict).toBe('not-linearizable')
    expect(lenient.verdict).toBe('not-linearizable')
    if (strict.verdict !== 'not-linearizable' || lenient.verdict !== 'not-linearizable') return
    // A grant and its release are shrunk as one: both shrink to the overlapping grants (before
    // units, the strict model kept a lone release whose grant had been dropped).
    expect(strict.counterexample).toEqual([history[1], history[3]])
    expect(lenient.counterexample).toEqual([history[1], history[3]])
    expect(
      checkHistory(lockModel({ strayRelease: 'ignore' }), [release('a', 0, 1, 9)]).verdict,
    ).toBe('linearizable')
    expect(() => lockModel({ strayRelease: 'maybe' as 'fail' })).toThrow(/strayRelease/)
  })
})
