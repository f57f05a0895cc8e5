/**
 * The register's history judged for linearizability. The fixture is a real recorded history (the
 * reads and writes of `pnpm cluster -- --n 3 --seconds 8 --loopback --chaos pause-holder --seed 7
 * --history FILE`): n1 is paused inside its critical section past its lease, and its late write
 * with the old token is refused by the fencing. Then the same history with one thing broken.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Operation } from '../src/history.js'
import { checkRegisterHistory, registerHistory } from '../src/linearizable.js'

const recorded: Operation[] = readFileSync(
  new URL('fixtures/pause-holder.history.jsonl', import.meta.url),
  'utf8',
)
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Operation)

const lastIndex = (ops: Operation[], test: (o: Operation) => boolean) =>
  ops.reduce((found, o, i) => (test(o) ? i : found), -1)
const replaced = (i: number, change: Partial<Operation>) =>
  recorded.map((o, j) => (j === i ? { ...o, ...change } : o))

describe('the recorded register history', () => {
  it('is linearizable, the fenced write included', () => {
    const fenced = recorded.filter((o) => o.outcome === 'fail')
    expect(fenced).toHaveLength(1)
    expect(registerHistory(recorded)).toHaveLength(recorded.length)
    expect(checkRegisterHistory(recorded).verdict).toBe('linearizable')
  })

  it('a stale read is caught, and shrunk to the operations that show it', () => {
    const read = lastIndex(recorded, (o) => o.f === 'read' && o.outcome === 'ok')
    const stale = replaced(read, { value: recorded[read]!.value! - 5 })
    const r = checkRegisterHistory(stale)
    expect(r.verdict).toBe('not-linearizable')
    if (r.verdict !== 'not-linearizable') return
    expect(r.minimal).toBe(true)
    expect(r.counterexample.map((o) => o.id)).toContain(
      `${stale[read]!.node} ${stale[read]!.pid} ${stale[read]!.op}`,
    )
  })

  it('the late write accepted instead of fenced is caught', () => {
    const late = recorded.findIndex((o) => o.outcome === 'fail')
    expect(checkRegisterHistory(replaced(late, { outcome: 'ok' })).verdict).toBe('not-linearizable')
  })

  it('a refusal no newer token explains is caught', () => {
    const first = recorded.findIndex((o) => o.f === 'read' && o.outcome === 'ok')
    expect(checkRegisterHistory(replaced(first, { outcome: 'fail' })).verdict).toBe(
      'not-linearizable',
    )
  })
})

describe('indeterminate operations', () => {
  const op = (
    o: Partial<Operation> & Pick<Operation, 'f' | 'invokedAt' | 'outcome'>,
  ): Operation => ({
    node: 'n1',
    pid: 1,
    op: 1,
    token: 1,
    ...o,
  })

  it('an indeterminate write may have landed or not', () => {
    const history = [
      op({ f: 'write', value: 1, invokedAt: 0, outcome: 'info' }),
      op({ node: 'n2', f: 'read', value: 1, invokedAt: 10, completedAt: 11, outcome: 'ok' }),
    ]
    expect(checkRegisterHistory(history).verdict).toBe('linearizable')
    const notLanded = [history[0]!, { ...history[1]!, value: 0 }]
    expect(checkRegisterHistory(notLanded).verdict).toBe('linearizable')
    const both = [...history, { ...history[1]!, value: 0, invokedAt: 12, completedAt: 13 }]
    expect(checkRegisterHistory(both).verdict).toBe('not-linearizable')
  })

  it('acquires and releases are left to the lock checks', () => {
    const history = [
      op({ f: 'acquire', invokedAt: 0, completedAt: 1, outcome: 'ok' }),
      op({ f: 'release', invokedAt: 2, completedAt: 3, outcome: 'ok' }),
    ]
    expect(registerHistory(history)).toEqual([])
  })
})
