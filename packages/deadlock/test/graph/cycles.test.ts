import { describe, expect, it } from 'vitest'
import { deadlockedOf, findCycleOf, WaitForGraph } from '../../src/graph/index.js'

// T1 -> T2 -> T3 -> T1 is a deadlock; T4 waits for T1, so it is stuck too (AND model) though not on
// the cycle; T5 waits for T6, which waits for nobody: both will move.
const bank = (): WaitForGraph<string> =>
  new WaitForGraph([
    ['T1', 'T2'],
    ['T2', 'T3'],
    ['T3', 'T1'],
    ['T4', 'T1'],
    ['T5', 'T6'],
  ])

describe('cycles and deadlocks on hand-made graphs', () => {
  it('tells processes on a cycle from processes that wait for one', () => {
    const g = bank()
    expect(['T1', 'T2', 'T3', 'T4', 'T5', 'T6'].map((p) => g.onCycle(p))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ])
    expect(['T1', 'T2', 'T3', 'T4', 'T5', 'T6'].map((p) => g.isDeadlocked(p))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ])
    expect(g.deadlockedProcesses()).toEqual(['T1', 'T2', 'T3', 'T4'])
  })

  it('finds a witness cycle through the start when it is on one, else the one it reaches', () => {
    const g = bank()
    expect(g.findCycle('T2')).toEqual(['T2', 'T3', 'T1'])
    expect(g.findCycle('T4')).toEqual(['T1', 'T2', 'T3'])
    expect(g.findCycle('T5')).toBeUndefined()
    expect(g.findCycle()).toEqual(['T1', 'T2', 'T3'])
  })

  it('breaking the cycle frees everyone', () => {
    const g = bank()
    g.removeWait('T3', 'T1')
    expect(g.findCycle()).toBeUndefined()
    expect(g.deadlockedProcesses()).toEqual([])
    expect(g.isDeadlocked('T4')).toBe(false)
    g.addWait('T3', 'T1')
    g.removeProcess('T2') // the victim aborts
    expect(g.findCycle()).toBeUndefined()
    expect(g.stronglyConnectedComponents({ cyclicOnly: true })).toEqual([])
  })

  it('two cycles sharing a process form one component', () => {
    // a <-> b and b -> c -> d -> b: one component {a, b, c, d}; e waits for it; f is a sink.
    const g = new WaitForGraph([
      ['a', 'b'],
      ['b', 'a'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'b'],
      ['e', 'd'],
      ['d', 'f'],
    ])
    const components = g.stronglyConnectedComponents()
    expect(components.map((c) => [...c].sort())).toEqual([['f'], ['a', 'b', 'c', 'd'], ['e']])
    expect(g.stronglyConnectedComponents({ cyclicOnly: true }).map((c) => c.length)).toEqual([4])
    expect(g.deadlockedProcesses().sort()).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(g.findCycle('c')).toEqual(['c', 'd', 'b']) // the shortest through c
    expect(g.elementaryCycles({ limit: 10 })).toEqual([
      ['a', 'b'],
      ['b', 'c', 'd'],
    ])
  })

  it('a diamond is no deadlock', () => {
    const g = new WaitForGraph([
      [1, 2],
      [1, 3],
      [2, 4],
      [3, 4],
    ])
    expect(g.findCycle()).toBeUndefined()
    expect(g.deadlockedProcesses()).toEqual([])
    expect(g.stronglyConnectedComponents()).toEqual([[4], [2], [3], [1]])
    expect(g.elementaryCycles({ limit: Infinity })).toEqual([])
  })

  it('the standalone forms agree with the class', () => {
    const waits = bank().waits()
    expect(findCycleOf(waits)).toEqual(['T1', 'T2', 'T3'])
    expect(deadlockedOf(waits)).toEqual(['T1', 'T2', 'T3', 'T4'])
    expect(findCycleOf([['x', 'y']])).toBeUndefined()
  })
})

describe('incremental detection on a hand-made graph', () => {
  it('reports the cycle a new wait closes, from the new wait', () => {
    const g = new WaitForGraph<string>()
    expect(g.addWaitDetect('T1', 'T2')).toBeUndefined()
    expect(g.addWaitDetect('T2', 'T3')).toBeUndefined()
    expect(g.addWaitDetect('T4', 'T1')).toBeUndefined()
    expect(g.cycleIfWaits('T3', 'T1')).toEqual(['T3', 'T1', 'T2'])
    expect(g.hasWait('T3', 'T1')).toBe(false) // only asked
    expect(g.addWaitDetect('T3', 'T1')).toEqual(['T3', 'T1', 'T2'])
    // A wait into the deadlock that closes no new cycle: T5 is stuck, but nothing new closed.
    expect(g.addWaitDetect('T5', 'T4')).toBeUndefined()
    expect(g.isDeadlocked('T5')).toBe(true)
    // Asked again for an existing wait, the cycle through it is still there.
    expect(g.addWaitDetect('T3', 'T1')).toEqual(['T3', 'T1', 'T2'])
  })

  it('reports a shortest cycle when several close', () => {
    // a -> b -> c -> d and a -> c: when d -> a arrives, d a c is shorter than d a b c.
    const g = new WaitForGraph([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['a', 'c'],
    ])
    expect(g.addWaitDetect('d', 'a')).toEqual(['d', 'a', 'c'])
  })
})
