import { isSdError } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { WaitForGraph } from '../../src/graph/index.js'

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn()
  } catch (error) {
    return isSdError(error) ? error.code : 'not an SdError'
  }
  return undefined
}

describe('WaitForGraph: processes and waits', () => {
  it('adds waits idempotently and lists successors and predecessors in insertion order', () => {
    const g = new WaitForGraph<string>()
    expect(g.addWait('a', 'b')).toBe(true)
    expect(g.addWait('a', 'c')).toBe(true)
    expect(g.addWait('a', 'b')).toBe(false)
    expect(g.addWait('d', 'b')).toBe(true)
    expect(g.size).toEqual({ processes: 4, waits: 3 })
    expect(g.waitsOf('a')).toEqual(['b', 'c'])
    expect(g.waitersOf('b')).toEqual(['a', 'd'])
    expect(g.waitsOf('b')).toEqual([])
    expect(g.hasWait('a', 'b')).toBe(true)
    expect(g.hasWait('b', 'a')).toBe(false)
    expect(g.processes()).toEqual(['a', 'b', 'c', 'd'])
    expect(g.waits()).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['d', 'b'],
    ])
  })

  it('removes a wait but keeps both processes', () => {
    const g = new WaitForGraph([
      ['a', 'b'],
      ['b', 'c'],
    ])
    expect(g.removeWait('a', 'b')).toBe(true)
    expect(g.removeWait('a', 'b')).toBe(false)
    expect(g.removeWait('x', 'b')).toBe(false)
    expect(g.size).toEqual({ processes: 3, waits: 1 })
    expect(g.hasProcess('a')).toBe(true)
    expect(g.waitersOf('b')).toEqual([])
  })

  it('removes a process with every wait from and to it, and reuses its slot for a new process', () => {
    const g = new WaitForGraph([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'b'],
      ['d', 'b'],
    ])
    expect(g.removeProcess('b')).toBe(true)
    expect(g.removeProcess('b')).toBe(false)
    expect(g.size).toEqual({ processes: 3, waits: 0 })
    expect(g.waitsOf('a')).toEqual([])
    expect(g.waitersOf('c')).toEqual([])
    expect(g.processes()).toEqual(['a', 'c', 'd'])
    g.addWait('e', 'a')
    expect(g.processes()).toEqual(['a', 'e', 'c', 'd']) // e took b's slot
    expect(g.waits()).toEqual([['e', 'a']])
    expect(g.stronglyConnectedComponents()).toHaveLength(4)
  })

  it('adds a process with no waits, once', () => {
    const g = new WaitForGraph()
    expect(g.addProcess('idle')).toBe(true)
    expect(g.addProcess('idle')).toBe(false)
    expect(g.size).toEqual({ processes: 1, waits: 0 })
    expect(g.isDeadlocked('idle')).toBe(false)
    expect(g.stronglyConnectedComponents()).toEqual([['idle']])
  })

  it('keeps the number 1 and the string "1" apart', () => {
    const g = new WaitForGraph()
    g.addWait(1, '1')
    g.addWait('1', 2)
    expect(g.size).toEqual({ processes: 3, waits: 2 })
    expect(g.hasWait(1, '1')).toBe(true)
    expect(g.hasWait('1', 1)).toBe(false)
    expect(g.onCycle(1)).toBe(false)
    g.addWait(2, 1)
    expect(g.findCycle(1)).toEqual([1, '1', 2])
    const [only, ...rest] = g.stronglyConnectedComponents()
    expect(new Set(only)).toEqual(new Set([1, '1', 2]))
    expect(rest).toEqual([])
  })

  it('answers for unknown processes without throwing', () => {
    const g = new WaitForGraph([['a', 'b']])
    expect(g.waitsOf('z')).toEqual([])
    expect(g.waitersOf('z')).toEqual([])
    expect(g.hasWait('z', 'a')).toBe(false)
    expect(g.onCycle('z')).toBe(false)
    expect(g.isDeadlocked('z')).toBe(false)
    expect(g.findCycle('z')).toBeUndefined()
    expect(g.cycleIfWaits('z', 'a')).toBeUndefined()
  })

  it('an empty graph has nothing', () => {
    const g = new WaitForGraph()
    expect(g.size).toEqual({ processes: 0, waits: 0 })
    expect(g.findCycle()).toBeUndefined()
    expect(g.stronglyConnectedComponents()).toEqual([])
    expect(g.deadlockedProcesses()).toEqual([])
    expect(g.elementaryCycles({ limit: 10 })).toEqual([])
  })
})

describe('WaitForGraph: bad arguments are InvalidArgumentError', () => {
  it('rejects a self-wait', () => {
    const g = new WaitForGraph()
    expect(codeOf(() => g.addWait('a', 'a'))).toBe('ERR_INVALID_ARGUMENT')
    expect(codeOf(() => g.addWaitDetect(3, 3))).toBe('ERR_INVALID_ARGUMENT')
    expect(codeOf(() => g.cycleIfWaits('a', 'a'))).toBe('ERR_INVALID_ARGUMENT')
    expect(g.size).toEqual({ processes: 0, waits: 0 })
  })

  it('rejects ids that are no string or finite number', () => {
    const g = new WaitForGraph()
    for (const bad of [Number.NaN, Infinity, undefined, null, {}, true]) {
      expect(codeOf(() => g.addWait(bad as never, 'b'))).toBe('ERR_INVALID_ARGUMENT')
      expect(codeOf(() => g.addWait('b', bad as never))).toBe('ERR_INVALID_ARGUMENT')
      expect(codeOf(() => g.addProcess(bad as never))).toBe('ERR_INVALID_ARGUMENT')
    }
    // The check comes before any change: 'b' was never added.
    expect(g.size).toEqual({ processes: 0, waits: 0 })
  })

  it('rejects a limit that is not a positive integer or Infinity', () => {
    const g = new WaitForGraph([
      ['a', 'b'],
      ['b', 'a'],
    ])
    for (const limit of [0, -1, 1.5, Number.NaN, '3'])
      expect(codeOf(() => g.elementaryCycles({ limit: limit as number }))).toBe(
        'ERR_INVALID_ARGUMENT',
      )
    expect(codeOf(() => g.elementaryCycles(undefined as never))).toBe('ERR_INVALID_ARGUMENT')
    expect(g.elementaryCycles({ limit: Infinity })).toEqual([['a', 'b']])
  })
})
