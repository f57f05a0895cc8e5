/** Small random histories for the property tests: few clients, few values, many overlaps. */
import type { Random } from '@sd/transport'
import type {
  CounterInput,
  CounterOutput,
  LockInput,
  LockOutput,
  Operation,
  RegisterInput,
  RegisterOutput,
} from '@sd/transport/history'

/** Intervals on a coarse clock (ties happen), one client's operations never overlapping. */
function intervals(random: Random, count: number, clients: number) {
  const free = new Array<number>(clients).fill(0)
  return Array.from({ length: count }, () => {
    const client = random.int(0, clients - 1)
    const invokedAt = free[client]! + random.int(0, 3)
    const pending = random.next() < 0.15
    const completedAt = pending ? undefined : invokedAt + random.int(0, 4)
    free[client] = pending ? Number.POSITIVE_INFINITY : completedAt!
    return { client, invokedAt, completedAt }
  }).filter((o) => Number.isFinite(o.invokedAt))
}

function withOutput<I, O>(
  at: { client: number; invokedAt: number; completedAt: number | undefined },
  input: I,
  output: O,
): Operation<I, O> {
  const { client, invokedAt, completedAt } = at
  return completedAt === undefined
    ? { client, input, invokedAt }
    : { client, input, output, invokedAt, completedAt }
}

export type RegOp = Operation<RegisterInput<number | null>, RegisterOutput<number | null>>

export function randomRegisterHistory(random: Random, count: number): RegOp[] {
  const value = () => random.int(0, 2)
  return intervals(random, count, 3).map((at) => {
    const kind = random.int(0, 5)
    if (kind <= 2) return withOutput(at, { f: 'read' }, random.int(0, 3) === 0 ? null : value())
    if (kind <= 4) return withOutput(at, { f: 'write', value: value() }, undefined)
    const from = random.int(0, 3) === 0 ? null : value()
    return withOutput(at, { f: 'cas', from, to: value() }, random.next() < 0.5)
  })
}

export function randomCounterHistory(
  random: Random,
  count: number,
): Operation<CounterInput, CounterOutput>[] {
  return intervals(random, count, 3).map((at) =>
    random.next() < 0.5
      ? withOutput(at, { f: 'add', delta: random.int(1, 2) } as CounterInput, undefined)
      : withOutput(at, { f: 'read' } as CounterInput, random.int(0, 4)),
  )
}

export function randomLockHistory(
  random: Random,
  count: number,
): Operation<LockInput, LockOutput>[] {
  return intervals(random, count, 3).map((at) => {
    const client = `c${at.client}`
    const token = random.int(1, 4)
    if (random.next() < 0.5) {
      const grantedBy = at.completedAt ?? Number.POSITIVE_INFINITY
      const grant = { token, leaseEnd: at.invokedAt + random.int(1, 8) }
      return withOutput(at, { f: 'acquire', client, grantedBy } as LockInput, grant as LockOutput)
    }
    return withOutput(at, { f: 'release', client, token } as LockInput, undefined as LockOutput)
  })
}
