/**
 * A hostile member sends every synchronizer (and temporal order) random and malformed messages
 * over many seeds: no node throws, every certainly malformed message is refused with an
 * `ignored` event naming the sender, no honest message is refused, and the honest nodes keep the
 * bounds the package promises.
 */
import type { NodeId, Protocol } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import {
  emptyHostileLog,
  type HostilePeerLog,
  hostilePeer,
} from '../../../test-support/hostile-messages.js'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { berkeley } from '../src/berkeley/protocol.js'
import type { DisciplinedClock } from '../src/clock/disciplined.js'
import { cristian } from '../src/cristian/protocol.js'
import { ntpSim } from '../src/ntp-sim/protocol.js'
import { temporalOrder } from '../src/temporal/protocol.js'
import { runSync, type SyncRun, spread } from './sync/harness.js'

const EVIL = 99
const MAX_DRIFT = 1e-4

/** `make` on every node but EVIL, which runs the hostile peer. */
function withEvil(
  log: HostilePeerLog,
  samples: unknown[],
  make: (self: NodeId, clock: DisciplinedClock) => Protocol<unknown, unknown, unknown>,
  opaque: string[] = [],
) {
  return (self: NodeId, clock: DisciplinedClock) =>
    self === EVIL
      ? hostilePeer({ samples, opaque, count: 60, everyMs: 20, log })
      : make(self, clock)
}

/** Every refusal names the hostile peer, and each node refused all it got that was malformed. */
function expectRefusals(run: SyncRun, log: HostilePeerLog, honest: readonly NodeId[]) {
  const ignored = run.events.filter((e) => e.event.type === 'ignored')
  for (const { event } of ignored) expect(event.from, String(event.reason)).toBe(EVIL)
  for (const id of honest) {
    const refused = ignored.filter((e) => e.node === id).length
    expect(refused, `refusals at ${id}`).toBeGreaterThanOrEqual(log.malformedTo.get(id) ?? 0)
  }
  expect(ignored.length).toBeGreaterThan(0)
  return ignored.length
}

const anyProtocol = (p: unknown) => p as Protocol<unknown, unknown, unknown>

describe('timesync under a hostile peer (random and malformed messages, many seeds)', () => {
  it("Cristian: clients keep their bound, the server's answers are untouched", () => {
    const ids = [0, 1, 2, 3, EVIL]
    forSeeds(seedList(50), (seed) => {
      const log = emptyHostileLog()
      const samples = [
        { type: 'time-request', seq: 1 },
        { type: 'time-reply', seq: 1, utcMs: 1000, handlingMs: 0 },
      ]
      const run = runSync(
        ids,
        withEvil(log, samples, (self, clock) =>
          anyProtocol(cristian({ server: 0, samples: 2, periodMs: 300 })(self, clock)),
        ),
        {
          seed,
          clockOf: (id, random) =>
            id === 0 ? { offset: 0, drift: 0 } : { offset: (2 * random() - 1) * 300, drift: 0 },
          until: 2000,
        },
      )
      expectRefusals(run, log, [0, 1, 2, 3])
      const adjusted = run.events.filter((e) => e.event.type === 'adjusted')
      expect(adjusted.length).toBeGreaterThanOrEqual(3 * 5)
      for (const { t, event } of adjusted) {
        const target = (event.readingMs as number) + (event.offsetMs as number)
        expect(Math.abs(target - t)).toBeLessThanOrEqual(event.errorBoundMs as number)
      }
    })
  })

  it('Berkeley: the honest clocks end within the round bound', () => {
    const ids = [1, 2, 3, 4, 5, EVIL]
    forSeeds(seedList(50), (seed) => {
      const log = emptyHostileLog()
      const samples = [
        { type: 'berkeley-poll', round: 1 },
        { type: 'berkeley-time', round: 1, clockMs: 20 },
        { type: 'berkeley-adjust', round: 1, adjustMs: 5, errorBoundMs: 1 },
      ]
      const run = runSync(
        ids,
        withEvil(log, samples, (self, clock) =>
          anyProtocol(berkeley({ master: 1, thresholdMs: 1000 })(self, clock)),
        ),
        { seed, maxOffsetMs: 200, maxDrift: MAX_DRIFT, maxSlewRate: 0.05, until: 20_000 },
      )
      expectRefusals(run, log, [1, 2, 3, 4, 5])
      const round = run.events.find((e) => e.event.type === 'berkeley-round')!
      const errors = run.errors()
      errors.delete(EVIL)
      const bound = (round.event.spreadBoundMs as number) + 2 * MAX_DRIFT * (run.net.now - round.t)
      expect(spread(errors.values())).toBeLessThanOrEqual(bound)
    })
  })

  it('NTP: clients stay within the selection bound of the true servers', () => {
    const servers = [1, 2, 3]
    const ids = [...servers, 4, 5, EVIL]
    forSeeds(seedList(30), (seed) => {
      const log = emptyHostileLog()
      const bytes = Array.from({ length: 48 }, (_, i) => (i === 0 ? 0x23 : 0))
      const run = runSync(
        ids,
        withEvil(log, [{ type: 'ntp', bytes }], (self, clock) =>
          anyProtocol(ntpSim({ servers, pollMs: 500 })(self, clock)),
        ),
        {
          seed,
          clockOf: (id, random) =>
            servers.includes(id as number) || id === EVIL
              ? { offset: 0, drift: 0 }
              : { offset: (2 * random() - 1) * 100, drift: (2 * random() - 1) * 1e-4 },
          maxSlewRate: 0.05,
          until: 4000,
        },
      )
      expectRefusals(run, log, [1, 2, 3, 4, 5])
      const adjusted = run.events.filter((e) => e.event.type === 'adjusted')
      expect(adjusted.length).toBeGreaterThanOrEqual(2 * 5)
      for (const { t, event } of adjusted) {
        const target = (event.readingMs as number) + (event.offsetMs as number)
        expect(Math.abs(target - t)).toBeLessThanOrEqual((event.errorBoundMs as number) + 1e-6)
      }
    })
  })

  it('temporal order: the honest broadcasts are delivered in one order everywhere, none late', () => {
    const honest = [1, 2, 3, 4]
    forSeeds(seedList(50), (seed) => {
      const log = emptyHostileLog()
      const samples = [{ type: 'temporal', ts: 300, seq: 1, payload: 'evil' }]
      const run = runSync(
        [...honest, EVIL],
        withEvil(
          log,
          samples,
          (self, clock) => anyProtocol(temporalOrder({ holdBackMs: 40 })(self, clock)),
          ['payload'],
        ),
        {
          seed,
          clockOf: () => ({ offset: 0, drift: 0 }),
          until: 3000,
          plan: (net) => {
            for (let k = 0; k < 30; k++)
              net.request(
                honest[k % honest.length]!,
                { type: 'broadcast', payload: k },
                10 + k * 37,
              )
          },
        },
      )
      expectRefusals(run, log, honest)
      const order = (id: NodeId) =>
        run.events
          .filter((e) => e.node === id && e.event.type === 'deliver' && e.event.from !== EVIL)
          .map((e) => {
            expect(e.event.late).toBe(false)
            return e.event.payload
          })
      expect(order(1)).toHaveLength(30)
      for (const id of honest) expect(order(id)).toEqual(order(1))
    })
  })
})
