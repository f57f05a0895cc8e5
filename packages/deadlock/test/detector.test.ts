import { describe, expect, it } from 'vitest'
import { createDeadlockDetector, type DeadlockReport } from '../src/index.js'

describe('createDeadlockDetector', () => {
  it('reports the cycle a new wait closes, with the requester as victim by default', () => {
    const seen: DeadlockReport[] = []
    const detector = createDeadlockDetector({ onDeadlock: (r) => seen.push(r) })
    expect(detector.addWait('t1', 't2')).toBeUndefined()
    expect(detector.addWait('t2', 't3')).toBeUndefined()
    const report = detector.addWait('t3', 't1')
    expect(report).toEqual({ type: 'deadlock', cycle: ['t3', 't1', 't2'], victim: 't3' })
    expect(seen).toEqual([report])
    expect(detector.deadlocked().sort()).toEqual(['t1', 't2', 't3'])
    // The application aborts the victim: the cycle is gone.
    detector.removeProcess('t3')
    expect(detector.deadlocked()).toEqual([])
  })

  it('takes other victim rules, and refuses one that picks outside the cycle', () => {
    const highest = createDeadlockDetector<number>({ victim: 'highest-id' })
    highest.addWait(10, 9)
    expect(highest.addWait(9, 10)?.victim).toBe(10)
    const custom = createDeadlockDetector<number>({ victim: (cycle) => Math.min(...cycle) })
    custom.addWait(3, 4)
    expect(custom.addWait(4, 3)?.victim).toBe(3)
    const wrong = createDeadlockDetector<number>({ victim: () => 99 })
    wrong.addWait(1, 2)
    expect(() => wrong.addWait(2, 1)).toThrow(/not on the cycle/)
  })

  it('a process waiting for a deadlocked one is deadlocked too (AND model), and unsubscribes', () => {
    const detector = createDeadlockDetector()
    const calls: unknown[] = []
    const off = detector.onDeadlock((r) => calls.push(r))
    detector.addWait('a', 'b')
    detector.addWait('b', 'a')
    detector.addWait('c', 'a')
    expect(detector.deadlocked().sort()).toEqual(['a', 'b', 'c'])
    off()
    detector.addWait('x', 'y')
    detector.addWait('y', 'x')
    expect(calls).toHaveLength(1)
  })
})
