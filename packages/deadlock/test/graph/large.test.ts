import { describe, expect, it } from 'vitest'
import { WaitForGraph } from '../../src/graph/index.js'

// A recursive depth-first search would need a million nested calls here and overflow the stack:
// these pass only because every search keeps its own stack.
const N = 1_000_000

describe('a million processes in one chain', () => {
  const g = new WaitForGraph<number>()
  for (let i = 0; i + 1 < N; i++) g.addWait(i, i + 1)

  it('as a path: a million components, no cycle, nobody deadlocked', () => {
    expect(g.size).toEqual({ processes: N, waits: N - 1 })
    const components = g.stronglyConnectedComponents()
    expect(components).toHaveLength(N)
    expect(components[0]).toEqual([N - 1]) // the sink first
    expect(components[N - 1]).toEqual([0])
    expect(g.stronglyConnectedComponents({ cyclicOnly: true })).toEqual([])
    expect(g.deadlockedProcesses()).toEqual([])
    expect(g.findCycle()).toBeUndefined()
    expect(g.isDeadlocked(0)).toBe(false)
  })

  it('closed into one cycle: one component of a million, everyone deadlocked', () => {
    const closing = g.addWaitDetect(N - 1, 0)
    expect(closing).toHaveLength(N)
    expect(closing![0]).toBe(N - 1)
    expect(closing![1]).toBe(0)
    const components = g.stronglyConnectedComponents()
    expect(components).toHaveLength(1)
    expect(components[0]).toHaveLength(N)
    expect(g.deadlockedProcesses()).toHaveLength(N)
    expect(g.findCycle()).toHaveLength(N)
    expect(g.onCycle(N / 2)).toBe(true)
    expect(g.elementaryCycles({ limit: 3 })).toHaveLength(1)
    g.removeWait(N - 1, 0)
  })
})
