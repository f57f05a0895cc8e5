import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { randomWorkload, runWorkload } from './support/workload.js'

for (const rule of ['wait-die', 'wound-wait'] as const) {
  describe(`prevention: ${rule}`, () => {
    it('never deadlocks: every process finishes, restarts keeping their timestamp (many seeds)', () => {
      let restarts = 0
      forSeeds(seedList(200), (seed) => {
        const workload = randomWorkload(seed, { processes: 4 + (seed % 8) })
        const run = runWorkload(seed, workload, { kind: 'prevention', rule }, 60_000)
        // Wait-die: only the older waits, so waits go old -> young and no cycle ever forms.
        // Wound-wait: an older requester waits for a younger holder only until its wound lands,
        // so a cycle may exist for a message's transit, never longer (none is left).
        if (rule === 'wait-die') expect(run.everDeadlocked).toBe(false)
        expect(run.unresolved).toBeUndefined()
        expect(run.selfWaits).toBe(0)
        expect(run.reports).toBe(0)
        // No starvation: every process finishes, however often it was aborted.
        expect([...run.finished].sort()).toEqual(workload.processes.map((p) => p.id).sort())
        const stamps = new Map<unknown, Set<number>>()
        const stamp = (p: unknown) => [...(stamps.get(p) ?? [])][0]!
        for (const { event } of run.events) {
          if (event.type === 'waits-for' && rule === 'wait-die')
            expect(
              stamp(event.from) < stamp(event.to) ||
                (stamp(event.from) === stamp(event.to) && String(event.from) < String(event.to)),
            ).toBe(true)
          if (event.type === 'aborted') {
            restarts++
            expect(event.reason).toBe(rule)
          }
          if (event.type === 'started') {
            const seen = stamps.get(event.process) ?? new Set()
            seen.add(event.timestamp)
            stamps.set(event.process, seen)
          }
        }
        for (const [p, seen] of stamps) expect(seen.size, `${String(p)} changed timestamp`).toBe(1)
      })
      // The rules did have to act: many conflicts ended in an abort and a restart.
      expect(restarts).toBeGreaterThan(50)
    })
  })
}

describe('wait-die and wound-wait decide by age', () => {
  const pair = (rule: 'wait-die' | 'wound-wait', requesterOlder: boolean) =>
    runWorkload(
      1,
      {
        sites: [1, 2],
        resources: { r: 1 },
        processes: [
          // The holder takes r first; the requester asks while it is held.
          {
            id: 'holder',
            home: 1,
            startAt: requesterOlder ? 5 : 0,
            steps: [{ acquire: 'r' }, { work: 50 }],
          },
          {
            id: 'requester',
            home: 2,
            startAt: requesterOlder ? 0 : 5,
            steps: [{ work: requesterOlder ? 20 : 0 }, { acquire: 'r' }, { work: 5 }],
          },
        ],
      },
      { kind: 'prevention', rule },
    )
      // Narrowed on the event type, so each branch reads a field its event has.
      .events.flatMap(({ event }) =>
        event.type === 'aborted'
          ? [`aborted ${String(event.process)}`]
          : event.type === 'waits-for'
            ? [`waits-for ${String(event.from)}`]
            : [],
      )

  it('wait-die: an older requester waits, a younger one dies', () => {
    expect(pair('wait-die', true)[0]).toBe('waits-for requester')
    expect(pair('wait-die', false)[0]).toBe('aborted requester')
  })

  it('wound-wait: an older requester wounds the holder, a younger one waits', () => {
    expect(pair('wound-wait', true)).toContain('aborted holder')
    expect(pair('wound-wait', false)[0]).toBe('waits-for requester')
    expect(pair('wound-wait', false)).not.toContain('aborted holder')
  })
})
