import { describe, expect, it } from 'vitest'
import { createNtpRequest, sampleFromReply, validateReply } from '../../src/ntp/client.js'
import type { NtpRejectReason } from '../../src/ntp/errors.js'
import { decodePacket, type NtpPacket, textToReferenceId } from '../../src/ntp/packet.js'
import { ntpToUnixMs, unixMsToNtp } from '../../src/ntp/timestamp.js'
import { reasonOf } from '../support/reason-of.js'
import { replyTo, T1 } from '../support/reply-ahead.js'

describe('the NTP client (pure)', () => {
  it('a request: client mode, version 4, transmit = T1 without a random source', () => {
    const request = createNtpRequest(T1)
    expect(request.bytes).toHaveLength(48)
    const p = decodePacket(request.bytes)
    expect(p).toMatchObject({ leap: 0, version: 4, mode: 3, stratum: 0 })
    expect(p.transmitTimestamp).toEqual(unixMsToNtp(T1))
    expect(request.transmit).toEqual(p.transmitTimestamp)
    expect(request.t1Ms).toBe(T1)
  })

  it('with a random source, the transmit fraction is random and T1 stays ours', () => {
    const request = createNtpRequest(T1 + 123.456, { random: () => 0.75 })
    expect(request.transmit).toEqual({ seconds: unixMsToNtp(T1).seconds, fraction: 0xc000_0000 })
    expect(request.t1Ms).toBe(T1 + 123.456)
    expect(() => createNtpRequest(T1, { random: () => 1 })).toThrow(/\[0, 1\)/)
  })

  it('a valid reply gives offset, delay and bounds', () => {
    const request = createNtpRequest(T1, { random: () => 0.3 })
    const sample = sampleFromReply(request, replyTo(request.transmit), T1 + 11)
    // θ = ((255) + (256 - 11)) / 2 = 250, δ = 11 - 1 = 10.
    expect(sample.offsetMs).toBeCloseTo(250, 6)
    expect(sample.delayMs).toBeCloseTo(10, 6)
    // To the server's clock: δ / 2 and a little; to true time, the server's root distance too.
    expect(sample.serverErrorBoundMs).toBeGreaterThanOrEqual(5)
    expect(sample.serverErrorBoundMs).toBeLessThan(5.01)
    expect(sample.rootDistanceMs).toBeCloseTo(sample.serverErrorBoundMs + 7.8125 / 2 + 1.953125, 9)
    expect(sample.errorBoundMs).toBe(sample.rootDistanceMs)
    expect(sample).toMatchObject({ stratum: 2, reference: '192.0.2.1', version: 4, leap: 0 })
    expect(sample.t2Ms).toBeCloseTo(T1 + 255, 6)
  })

  it('version 3 replies are accepted; a server past the 2036 rollover is read in its era', () => {
    const request = createNtpRequest(T1)
    expect(validateReply(request, replyTo(request.transmit, { version: 3 })).version).toBe(3)
    const t1 = Date.UTC(2036, 1, 7, 6, 28, 15, 900)
    const late = createNtpRequest(t1)
    const reply = replyTo(late.transmit, {
      receiveTimestamp: unixMsToNtp(t1 + 150),
      transmitTimestamp: unixMsToNtp(t1 + 151),
    })
    expect(decodePacket(reply).receiveTimestamp.seconds).toBe(0)
    expect(sampleFromReply(late, reply, t1 + 1).offsetMs).toBeCloseTo(150, 6)
  })

  it('every reason for refusing a reply', () => {
    const request = createNtpRequest(T1, { random: () => 0.5 })
    const t = request.transmit
    const cases: Array<[NtpRejectReason, Uint8Array]> = [
      ['short', replyTo(t).slice(0, 47)],
      ['version', replyTo(t, { version: 2 })],
      ['version', replyTo(t, { version: 5 })],
      ['mode', replyTo(t, { mode: 3 })],
      ['mode', replyTo(t, { mode: 5 })],
      ['origin-mismatch', replyTo({ ...t, fraction: (t.fraction ^ 1) >>> 0 })],
      ['origin-mismatch', replyTo({ seconds: 0, fraction: 0 })],
      ['kiss-o-death', replyTo(t, { stratum: 0, leap: 3, referenceId: textToReferenceId('RATE') })],
      ['stratum', replyTo(t, { stratum: 0, referenceId: 0x0102_0304 })],
      ['stratum', replyTo(t, { stratum: 16 })],
      ['stratum', replyTo(t, { stratum: 200 })],
      ['unsynchronized', replyTo(t, { leap: 3 })],
      ['zero-transmit', replyTo(t, { transmitTimestamp: { seconds: 0, fraction: 0 } })],
    ]
    for (const [reason, bytes] of cases)
      expect(reasonOf(() => validateReply(request, bytes))).toBe(reason)
  })

  it('a kiss-o-death carries its code; a forged one (wrong origin) is only a mismatch', () => {
    const request = createNtpRequest(T1)
    const kiss = (origin: NtpPacket['originTimestamp']) =>
      replyTo(origin, { stratum: 0, leap: 3, referenceId: textToReferenceId('DENY') })
    try {
      validateReply(request, kiss(request.transmit))
      expect.unreachable()
    } catch (error) {
      expect(error).toMatchObject({
        reason: 'kiss-o-death',
        kissCode: 'DENY',
        message: expect.stringMatching(/DENY.*denied/),
      })
    }
    expect(reasonOf(() => validateReply(request, kiss({ seconds: 1, fraction: 2 })))).toBe(
      'origin-mismatch',
    )
  })

  it('T2 and T3 are read in the era nearest T1', () => {
    const request = createNtpRequest(T1)
    const sample = sampleFromReply(request, replyTo(request.transmit), T1 + 11)
    expect(sample.t3Ms).toBe(ntpToUnixMs(unixMsToNtp(T1 + 256), T1))
  })
})
