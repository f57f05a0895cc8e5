import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { randomWorkload, runWorkload, type Workload } from './support/workload.js'

describe('centralized detection', () => {
  it('with confirmation: no phantom, none left, survivors finish (many seeds)', () => {
    let deadlocked = 0
    forSeeds(seedList(200), (seed) => {
      const workload = randomWorkload(seed)
      const run = runWorkload(
        seed,
        workload,
        { kind: 'centralized', coordinator: workload.sites[0]!, periodMs: 40 },
        5000,
      )
      expect(run.phantoms).toEqual([])
      expect(run.unresolved).toBeUndefined()
      expect(run.selfWaits).toBe(0)
      expect(run.unreportedVictims).toEqual([])
      if (run.everDeadlocked) deadlocked++
      for (const p of workload.processes)
        expect(run.finished.has(p.id) || run.aborted.has(p.id), `${p.id}`).toBe(true)
    })
    expect(deadlocked).toBeGreaterThan(30)
  })

  // A waited for B at site 1 when site 1 was read; then B released that lock and asked for one
  // A holds at site 2, which was read later: the merged graph has A -> B -> A, which never was.
  const phantom: Workload = {
    sites: [1, 2, 3],
    resources: { r1: 1, r2: 2 },
    processes: [
      {
        id: 'A',
        home: 2,
        steps: [{ acquire: 'r2' }, { work: 2 }, { acquire: 'r1' }, { work: 100 }],
      },
      {
        id: 'B',
        home: 1,
        startAt: 0.5,
        steps: [{ acquire: 'r1' }, { work: 20 }, { release: 'r1' }, { acquire: 'r2' }],
      },
    ],
  }
  const slowToSite2 = (confirm: boolean) =>
    runWorkloadWithLinks(phantom, { kind: 'centralized', coordinator: 3, confirm })

  it('without confirmation, stale waits make a phantom deadlock and an innocent victim', () => {
    const run = slowToSite2(false)
    expect(run.phantoms.map((p) => [...p.cycle].sort())).toEqual([['A', 'B']])
    // The youngest, B, was only waiting for A to finish: aborted for nothing.
    expect([...run.aborted]).toEqual(['B'])
  })

  it('with confirmation, the same run reports the phantom as such and aborts nobody', () => {
    const run = slowToSite2(true)
    expect(run.phantoms).toEqual([])
    expect(run.events.filter((e) => e.event.type === 'phantom')).toHaveLength(1)
    expect(run.aborted.size).toBe(0)
    expect([...run.finished].sort()).toEqual(['A', 'B'])
  })
})

/** The phantom's timing: the coordinator's collect reaches site 1 at once, site 2 only at t=30. */
function runWorkloadWithLinks(workload: Workload, strategy: Parameters<typeof runWorkload>[2]) {
  return runWorkload(1, workload, strategy, undefined, (net) => {
    net.setLink(3, 2, { latency: 28 })
    net.request(3, { type: 'detect' }, 2)
  })
}
