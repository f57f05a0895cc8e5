import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { randomWorkload, runWorkload } from './support/workload.js'

describe('resource manager with Chandy-Misra-Haas (random lock workloads)', () => {
  it('reports only real cycles, leaves none, and every process not aborted finishes (many seeds)', () => {
    let deadlocked = 0
    forSeeds(seedList(300), (seed) => {
      const workload = randomWorkload(seed)
      const run = runWorkload(seed, workload, { kind: 'chandy-misra-haas' })
      expect(run.phantoms).toEqual([])
      expect(run.unresolved).toBeUndefined()
      expect(run.selfWaits).toBe(0)
      expect(run.unreportedVictims).toEqual([])
      if (run.everDeadlocked) {
        deadlocked++
        expect(run.reports).toBeGreaterThan(0)
        expect(run.aborted.size).toBeGreaterThan(0)
      } else expect(run.reports).toBe(0)
      for (const p of workload.processes)
        expect(
          run.finished.has(p.id) || run.aborted.has(p.id),
          `${p.id} neither finished nor aborted`,
        ).toBe(true)
      // Only victims are aborted in detection mode, and they never finish.
      for (const p of run.aborted) expect(run.finished.has(p)).toBe(false)
    })
    expect(deadlocked).toBeGreaterThan(30)
  })

  it('the victim is the youngest of the cycle, and its locks pass to the waiters', () => {
    // p1 holds a (site 1) and wants b; p2 holds b (site 2) and wants a: p2 started later.
    const run = runWorkload(
      1,
      {
        sites: [1, 2],
        resources: { a: 1, b: 2 },
        processes: [
          { id: 'p1', home: 1, steps: [{ acquire: 'a' }, { work: 10 }, { acquire: 'b' }] },
          {
            id: 'p2',
            home: 2,
            startAt: 1,
            steps: [{ acquire: 'b' }, { work: 10 }, { acquire: 'a' }],
          },
        ],
      },
      { kind: 'chandy-misra-haas' },
    )
    const reports = run.events.filter((e) => e.event.type === 'deadlock').map((e) => e.event)
    expect(reports.length).toBeGreaterThan(0)
    for (const r of reports) expect(r).toMatchObject({ victim: 'p2' })
    expect([...run.aborted]).toEqual(['p2'])
    expect([...run.finished]).toEqual(['p1'])
  })
})
