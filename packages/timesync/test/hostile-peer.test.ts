/**
 * A hostile member sends every synchronizer (and temporal order) random and malformed messages
 * over many seeds: no node throws, every certainly malformed message is refused with an
 * `ignored` event naming the sender, no honest message is refused, and the honest nodes keep the
 * bounds the package promises.
 */
import type { NodeId, Protocol, TimedEvent } from '@sd/transport'
import { ofType } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'
import {
  emptyHostileLog,
  type HostilePeerLog,
  hostilePeer,
} from '../../../test-support/hostile-messages.js'
import { forSeeds, seedList } from '../../../test-support/seeds.js'
import { berkeley } from '../src/berkeley/protocol.js'
import type { DisciplinedClock } from '../src/clock/disciplined.js'
import type { IgnoredEvent } from '../src/contract.js'
import { cristian } from '../src/cristian/protocol.js'
import { ntpSim } from '../src/ntp-sim/protocol.js'
import { temporalOrder } from '../src/temporal/protocol.js'
import { runSync, spread } from './sync/harness.js'

const EVIL = 99
const MAX_DRIFT = 1e-4

/** `make` on every node but EVIL, which runs the hostile peer. */
function withEvil<Msg, Req, Ev>(
  log: HostilePeerLog,
  samples: unknown[],
  make: (self: NodeId, clock: DisciplinedClock) => Protocol<Msg, Req, Ev>,
  opaque: string[] = [],
) {
  return (self: NodeId, clock: DisciplinedClock): Protocol<Msg, Req, Ev> =>
    self === EVIL
      ? hostilePeer({ samples, opaque, count: 60, everyMs: 20, log })
      : make(self, clock)
}

/** Every refusal names the hostile peer, and each node refused all it got that was malformed. */
function expectRefusals(
  ignored: readonly TimedEvent<IgnoredEvent>[],
  log: HostilePeerLog,
  honest: readonly NodeId[],
) {
  for (const { event } of ignored) expect(event.from, String(event.reason)).toBe(EVIL)
  for (const id of honest) {
    const refused = ignored.filter((e) => e.node === id).length
    expect(refused, `refusals at ${id}`).toBeGreaterThanOrEqual(log.malformedTo.get(id) ?? 0)
  }
  expect(ignored.length).toBeGreaterThan(0)
  return ignored.length
}

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
          cristian({ server: 0, samples: 2, periodMs: 300 })(self, clock),
        ),
        {
          seed,
          clockOf: (id, random) =>
            id === 0 ? { offset: 0, drift: 0 } : { offset: (2 * random() - 1) * 300, drift: 0 },
          until: 2000,
        },
      )
      expectRefusals(ofType(run.events, 'ignored'), log, [0, 1, 2, 3])
      const adjusted = ofType(run.events, 'adjusted')
      expect(adjusted.length).toBeGreaterThanOrEqual(3 * 5)
      for (const { t, event } of adjusted) {
        const target = event.readingMs + event.offsetMs
        expect(Math.abs(target - t)).toBeLessThanOrEqual(event.errorBoundMs)
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
          berkeley({ master: 1, thresholdMs: 1000 })(self, clock),
        ),
        { seed, maxOffsetMs: 200, maxDrift: MAX_DRIFT, maxSlewRate: 0.05, until: 20_000 },
      )
      expectRefusals(ofType(run.events, 'ignored'), log, [1, 2, 3, 4, 5])
      const round = ofType(run.events, 'berkeley-round')[0]!
      const errors = run.errors()
      errors.delete(EVIL)
      const bound = round.event.spreadBoundMs + 2 * MAX_DRIFT * (run.net.now - round.t)
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
          ntpSim({ servers, pollMs: 500 })(self, clock),
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
      expectRefusals(ofType(run.events, 'ignored'), log, [1, 2, 3, 4, 5])
      const adjusted = ofType(run.events, 'adjusted')
      expect(adjusted.length).toBeGreaterThanOrEqual(2 * 5)
      for (const { t, event } of adjusted) {
        const target = event.readingMs + event.offsetMs
        expect(Math.abs(target - t)).toBeLessThanOrEqual(event.errorBoundMs + 1e-6)
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
        withEvil(log, samples, (self, clock) => temporalOrder({ holdBackMs: 40 })(self, clock), [
          'payload',
        ]),
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
      expectRefusals(ofType(run.events, 'ignored'), log, honest)
      const order = (id: NodeId) =>
        ofType(run.events, 'deliver')
          .filter((e) => e.node === id && e.event.from !== EVIL)
          .map((e) => {
            expect(e.event.late).toBe(false)
            return e.event.payload
          })
      expect(order(1)).toHaveLength(30)
      for (const id of honest) expect(order(id)).toEqual(order(1))
    })
  })
})
