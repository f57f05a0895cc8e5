import type { NodeId } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { ntpSim } from '../src/ntp-sim/protocol.js'
import { runSync } from './sync/harness.js'

const SERVERS: NodeId[] = [1, 2, 3, 4]
const CLIENTS = [5, 6, 7]
const FALSETICKER = 4

describe('NTP in the simulator (the real packets over the transport)', () => {
  it('rejects a falseticker among 4 servers and keeps clients within the selection bound (many seeds)', () => {
    forSeeds(seedList(40), (seed) => {
      const run = runSync(
        [...SERVERS, ...CLIENTS],
        (self, clock) => ntpSim({ servers: SERVERS, pollMs: 500 })(self, clock),
        {
          seed,
          clockOf: (id, random) =>
            id === FALSETICKER
              ? { offset: 500, drift: 0 }
              : SERVERS.includes(id)
                ? { offset: 0, drift: 0 }
                : { offset: (2 * random() - 1) * 100, drift: (2 * random() - 1) * 1e-4 },
          maxSlewRate: 0.05,
          until: 8000,
        },
      )
      const selections = ofType(run.events, 'ntp-selection')
      expect(selections.length).toBeGreaterThanOrEqual(CLIENTS.length * 10)
      for (const { event } of selections) {
        expect(event.falsetickers).toEqual([FALSETICKER])
        expect(event.truechimers).toEqual([1, 2, 3])
      }
      // The true servers keep true time: every target is within its bound of it.
      for (const { t, event } of ofType(run.events, 'adjusted')) {
        const target = event.readingMs + event.offsetMs
        expect(Math.abs(target - t)).toBeLessThanOrEqual(event.errorBoundMs + 1e-6)
      }
      for (const id of CLIENTS) expect(Math.abs(run.errors().get(id)!)).toBeLessThan(15)
    })
  })

  it('reports no majority instead of trusting two servers that disagree', () => {
    const run = runSync([1, 2, 3], (self, clock) => ntpSim({ servers: [1, 2] })(self, clock), {
      seed: 1,
      clockOf: (id) => ({ offset: id === 2 ? 400 : 0, drift: 0 }),
      until: 900,
    })
    const kinds = run.events.map((e) => e.event.type)
    expect(kinds).toContain('sync-failed')
    expect(kinds).not.toContain('adjusted')
  })

  it('refuses options outside their domain', () => {
    expect(() => ntpSim({ servers: [] })).toThrow(/server/)
    expect(() => ntpSim({ servers: [1], pollMs: 0 })).toThrow(/pollMs/)
  })
})
