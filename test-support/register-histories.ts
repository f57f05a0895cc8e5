/**
 * Register histories that are linearizable by construction, for the checker's benchmark and tests: clients
 * run operations one after the other on overlapping random intervals, each operation takes
 * effect at a random moment inside its interval on a real register (one per key), and reads
 * return what the register held then. A pending write (its client crashed) took effect or not,
 * at random; the client comes back as a new process.
 */
// Types only: test-support has no dependencies of its own (the callers bring createRandom).
import type { Random } from '@sd/transport'
import type { Operation, RegisterInput, RegisterOutput } from '@sd/transport/history'

export type RegisterOp = Operation<RegisterInput<number | null>, RegisterOutput<number | null>>

export interface HistoryShape {
  operations: number
  clients: number
  keys: number
  /** Share of the writes left pending. */
  pendingWrites: number
}

export function linearizableRegisterHistory(shape: HistoryShape, random: Random): RegisterOp[] {
  const free = new Array<number>(shape.clients).fill(0)
  const incarnation = new Array<number>(shape.clients).fill(1)
  const effects: { at: number; op: RegisterOp }[] = []
  const history: RegisterOp[] = []
  for (let i = 0; i < shape.operations; i++) {
    let c = 0
    for (let k = 1; k < shape.clients; k++) if (free[k]! < free[c]!) c = k
    const invokedAt = free[c]! + random.int(0, 5)
    const completedAt = invokedAt + random.int(1, 30)
    const at = invokedAt + random.next() * (completedAt - invokedAt)
    const key = shape.keys > 1 ? random.int(1, shape.keys) : undefined
    const client = `c${c}.${incarnation[c]}`
    const isWrite = random.next() < 0.5
    const input: RegisterInput<number | null> = isWrite
      ? { f: 'write', value: i + 1, ...(key === undefined ? {} : { key }) }
      : { f: 'read', ...(key === undefined ? {} : { key }) }
    const pending = isWrite && random.next() < shape.pendingWrites
    const op: RegisterOp = pending
      ? { client, input, invokedAt }
      : { client, input, invokedAt, completedAt }
    history.push(op)
    if (!pending || random.next() < 0.5) effects.push({ at, op })
    if (pending) incarnation[c]!++
    free[c] = completedAt
  }
  effects.sort((a, b) => a.at - b.at)
  const registers = new Map<unknown, number | null>()
  for (const { op } of effects) {
    if (op.input.f === 'write') registers.set(op.input.key, op.input.value)
    else op.output = registers.get(op.input.key) ?? null
  }
  return history
}
