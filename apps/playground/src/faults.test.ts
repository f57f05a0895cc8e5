import type { TraceEvent } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { faultLines, faultsOf } from './faults.js'

describe('faults of a run', () => {
  it('says each fault once, in time order, crashes at one instant on one line', () => {
    const trace: TraceEvent[] = [
      { t: 0, type: 'start', node: 1 },
      { t: 0, type: 'crash', node: 1 },
      { t: 0, type: 'crash', node: 3 },
      { t: 12.5, type: 'partition', groups: [[1, 2, 3, 4], [5]] },
      { t: 15, type: 'crash', node: 2 },
      { t: 30, type: 'restart', node: 2 },
      { t: 40, type: 'heal' },
    ]
    const faults = faultsOf(trace)
    expect(faults.map((f) => f.type)).toEqual([
      'crash',
      'crash',
      'partition',
      'crash',
      'restart',
      'heal',
    ])
    expect(faultLines(faults, [1, 3, 2])).toEqual([
      'crash of 1, 3 at t=0 ms',
      'partition {1..4} | {5} at t=12.500 ms',
      'crash of 2 at t=15 ms',
      'restart of 2 at t=30 ms',
      'heal at t=40 ms',
    ])
  })

  it('says when a requested crash never happened', () => {
    expect(faultLines([], [4])).toEqual(['--crash 4 never took effect: the run ended first'])
  })
})
