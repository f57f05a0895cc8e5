/**
 * Hole 6 of issue 20: replies whose header or timestamps cannot be true (RFC 5905's packet
 * sanity checks, and the consistency of the four timestamps) are refused with a reason, and the
 * error bound a sample reports is the root distance: the server's own distance to its reference
 * counts, not only the round trip.
 */
import { describe, expect, it } from 'vitest'
import {
  createNtpRequest,
  DEFAULT_MAX_OFFSET_MS,
  sampleFromReply,
  validateReply,
} from '../../src/ntp/client.js'
import type { NtpRejectReason } from '../../src/ntp/errors.js'
import type { NtpPacket } from '../../src/ntp/packet.js'
import { unixMsToNtp, ZERO_TIMESTAMP } from '../../src/ntp/timestamp.js'
import { reasonOf } from '../support/reason-of.js'
import { replyTo, T1 } from '../support/reply-ahead.js'

const YEAR_MS = 365.25 * 86_400_000

/** Server times `aheadMs` ahead of ours, consistent with each other. */
const ahead = (aheadMs: number): Partial<NtpPacket> => ({
  referenceTimestamp: unixMsToNtp(T1 + aheadMs - 60_000),
  receiveTimestamp: unixMsToNtp(T1 + 5 + aheadMs),
  transmitTimestamp: unixMsToNtp(T1 + 6 + aheadMs),
})

describe('NTP client sanity checks (issue 20, hole 6)', () => {
  const request = createNtpRequest(T1, { random: () => 0.25 })
  const t = request.transmit
  const refused = (bytes: Uint8Array, options?: { maxOffsetMs?: number }) =>
    reasonOf(() => sampleFromReply(request, bytes, T1 + 11, options))

  it('each absurd reply is refused with its reason (they were accepted before)', () => {
    const cases: Array<[NtpRejectReason, string, Partial<NtpPacket>]> = [
      ['root-distance', 'root dispersion 16 s', { rootDispersion: 16 }],
      ['root-distance', 'root delay 32 s', { rootDelay: 32 }],
      ['root-distance', 'root delay 2 s + dispersion 15 s', { rootDelay: 2, rootDispersion: 15 }],
      ['root-distance', 'both at their maximum', { rootDelay: 65_535, rootDispersion: 65_535 }],
      [
        'reference-after-transmit',
        'reference 1 s after T3',
        { referenceTimestamp: unixMsToNtp(T1 + 1256) },
      ],
      ['zero-receive', 'T2 = 0', { receiveTimestamp: ZERO_TIMESTAMP }],
      [
        'transmit-before-receive',
        'T3 1 ms before T2',
        { receiveTimestamp: unixMsToNtp(T1 + 257), transmitTimestamp: unixMsToNtp(T1 + 256) },
      ],
      [
        'negative-delay',
        'T2 30 years before T3',
        { receiveTimestamp: unixMsToNtp(T1 + 5 - 30 * YEAR_MS) },
      ],
      [
        'negative-delay',
        'a hold of 12 ms in a round trip of 11',
        { receiveTimestamp: unixMsToNtp(T1 + 244), transmitTimestamp: unixMsToNtp(T1 + 256) },
      ],
      ['offset-limit', '9 years ahead', ahead(9 * YEAR_MS)],
      ['offset-limit', '30 years ahead', ahead(30 * YEAR_MS)],
      ['offset-limit', '30 years behind', ahead(-30 * YEAR_MS)],
    ]
    for (const [reason, what, change] of cases)
      expect(refused(replyTo(t, change)), what).toBe(reason)
  })

  it('the header checks are part of validateReply', () => {
    expect(reasonOf(() => validateReply(request, replyTo(t, { rootDispersion: 20 })))).toBe(
      'root-distance',
    )
    expect(
      reasonOf(() => validateReply(request, replyTo(t, { receiveTimestamp: ZERO_TIMESTAMP }))),
    ).toBe('zero-receive')
  })

  it('just inside each limit is accepted', () => {
    const ok = (change: Partial<NtpPacket>, options?: { maxOffsetMs?: number }) =>
      sampleFromReply(request, replyTo(t, change), T1 + 11, options)
    expect(ok({ rootDelay: 2, rootDispersion: 14.99 }).rootDispersionMs).toBeCloseTo(14_990, 0)
    expect(ok({ referenceTimestamp: unixMsToNtp(T1 + 256) }).offsetMs).toBeCloseTo(250, 6)
    // RFC 5905 compares the 64 bits: a zero (never set) reference is not after anything.
    expect(ok({ referenceTimestamp: ZERO_TIMESTAMP }).offsetMs).toBeCloseTo(250, 6)
    // A hold as long as the round trip leaves a zero delay.
    const zeroDelay = ok({
      receiveTimestamp: unixMsToNtp(T1 + 245),
      transmitTimestamp: unixMsToNtp(T1 + 256),
    })
    expect(zeroDelay.delayMs).toBeLessThan(0.01)
    expect(ok(ahead(DEFAULT_MAX_OFFSET_MS - 1000)).offsetMs).toBeCloseTo(
      DEFAULT_MAX_OFFSET_MS - 1000,
      3,
    )
    // A caller whose own clock may be decades off lifts the limit.
    const far = ok(ahead(30 * YEAR_MS), { maxOffsetMs: Number.POSITIVE_INFINITY })
    expect(far.offsetMs).toBeCloseTo(30 * YEAR_MS, 3)
    expect(refused(replyTo(t, ahead(2000)), { maxOffsetMs: 1000 })).toBe('offset-limit')
  })

  it('the error bound is the root distance: root delay / 2 + root dispersion + δ / 2 + dispersion', () => {
    const sample = sampleFromReply(request, replyTo(t), T1 + 11)
    // δ = 11 - 1 = 10 ms; dispersion ε = both precisions (2 × 2^-20 s) + 15 ppm of the 11 ms.
    const epsilon = 2 * 2 ** -20 * 1000 + 15e-6 * 11
    const lambda = 7.8125 / 2 + 1.953125 + 10 / 2 + epsilon
    expect(sample.errorBoundMs).toBeCloseTo(lambda, 9)
    expect(sample.rootDistanceMs).toBeCloseTo(lambda, 9)
    // The narrower bound, to the server's own clock, is kept apart.
    expect(sample.serverErrorBoundMs).toBeCloseTo(10 / 2 + epsilon, 9)
    // A server far from its reference widens the bound by as much.
    const loose = sampleFromReply(request, replyTo(t, { rootDispersion: 10 }), T1 + 11)
    expect(loose.errorBoundMs - sample.errorBoundMs).toBeCloseTo(10_000 - 1.953125, 6)
  })
})
