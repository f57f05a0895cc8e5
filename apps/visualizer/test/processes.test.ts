import { describe, expect, it } from 'vitest'
import { localRuns, runKey, shownProcesses } from '../src/processes.js'
import { traceToDiagram } from '../src/trace.js'

function run() {
  return traceToDiagram({
    nodes: ['n1', 'n2'],
    events: [
      { t: 0, type: 'start', node: 'n1' },
      { t: 1, type: 'emit', node: 'n1', event: { type: 'a' } },
      { t: 2, type: 'timer-set', node: 'n1', key: 'k', delay: 1 },
      { t: 3, type: 'send', id: 1, from: 'n1', to: 'n2', msg: { type: 'm' } },
      { t: 4, type: 'emit', node: 'n2', event: { type: 'b' } },
      { t: 5, type: 'deliver', id: 1, from: 'n1', to: 'n2', sentAt: 3 },
      { t: 6, type: 'emit', node: 'n2', event: { type: 'c' } },
      { t: 7, type: 'emit', node: 'n2', event: { type: 'd' } },
      { t: 8, type: 'crash', node: 'n2' },
      { t: 9, type: 'restart', node: 'n2' },
      { t: 10, type: 'emit', node: 'n2', event: { type: 'e' } },
    ],
  })
}

describe('collapsing local events', () => {
  it('groups two or more local events between message events, per line', () => {
    const runs = localRuns(run().events)
    expect(runs.map((r) => r.map((e) => e.id))).toEqual([
      [0, 1, 2],
      [6, 7],
    ])
    expect(runKey(runs[0]!)).toBe('n1:0')
  })

  it('leaves out the events the filters hide: they neither count nor end a run', () => {
    const runs = localRuns(run().events, (e) => e.kind !== 'timer-set')
    expect(runs.map((r) => r.map((e) => e.id))).toEqual([
      [0, 1],
      [6, 7],
    ])
    expect(localRuns(run().events, () => true, 3).map((r) => r.length)).toEqual([3])
  })

  it('draws the processes not hidden, in order', () => {
    expect(shownProcesses(['n1', 'n2', 'n3'], new Set(['n2']))).toEqual(['n1', 'n3'])
  })
})
