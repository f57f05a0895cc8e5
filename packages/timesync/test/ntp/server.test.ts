import { describe, expect, it } from 'vitest'
import { createNtpRequest, sampleFromReply } from '../../src/ntp/client.js'
import { decodePacket, encodePacket, type NtpPacket } from '../../src/ntp/packet.js'
import {
  answerNtpRequest,
  DEFAULT_SERVER_REFERENCE_ID,
  DEFAULT_SERVER_STRATUM,
  resolveServerOptions,
} from '../../src/ntp/server.js'
import { unixMsToNtp } from '../../src/ntp/timestamp.js'
import { reasonOf } from '../support/reason-of.js'

const NOW = Date.UTC(2026, 5, 1, 8, 0, 0)

/** A request as chrony sends it: version 4, poll 10, a random transmit timestamp. */
function request(change: Partial<NtpPacket> = {}): Uint8Array {
  return encodePacket({
    leap: 0,
    version: 4,
    mode: 3,
    stratum: 0,
    poll: 10,
    precision: -25,
    rootDelay: 0,
    rootDispersion: 0,
    referenceId: 0,
    referenceTimestamp: { seconds: 0, fraction: 0 },
    originTimestamp: { seconds: 0, fraction: 0 },
    receiveTimestamp: { seconds: 0, fraction: 0 },
    transmitTimestamp: { seconds: 0x8bad_f00d, fraction: 0xdead_beef },
    ...change,
  })
}

describe('the NTP server (pure)', () => {
  it('answers in server mode, copying version, poll and the raw transmit into the origin', () => {
    const reply = decodePacket(answerNtpRequest(request({ version: 3 }), NOW, NOW + 0.5))
    expect(reply).toMatchObject({
      leap: 0,
      version: 3,
      mode: 4,
      stratum: DEFAULT_SERVER_STRATUM,
      poll: 10,
      precision: -20,
      rootDelay: 0,
      rootDispersion: 0,
      referenceId: DEFAULT_SERVER_REFERENCE_ID,
      originTimestamp: { seconds: 0x8bad_f00d, fraction: 0xdead_beef },
      receiveTimestamp: unixMsToNtp(NOW),
      transmitTimestamp: unixMsToNtp(NOW + 0.5),
      referenceTimestamp: unixMsToNtp(NOW),
    })
  })

  it('says what the options say', () => {
    const reply = decodePacket(
      answerNtpRequest(request(), NOW, NOW, {
        stratum: 1,
        referenceId: 'GPS',
        precision: -23,
        rootDelayMs: 1.5,
        rootDispersionMs: 250,
        leap: 1,
        referenceMs: NOW - 16_000,
      }),
    )
    expect(reply).toMatchObject({ stratum: 1, referenceId: 0x4750_5300, precision: -23, leap: 1 })
    expect(reply.rootDelay).toBeCloseTo(0.0015, 4)
    expect(reply.rootDispersion).toBe(0.25)
    expect(reply.referenceTimestamp).toEqual(unixMsToNtp(NOW - 16_000))
  })

  it('our client measures our server: a server 250 ms ahead, 3 ms away each way', () => {
    const t1 = NOW
    const req = createNtpRequest(t1, { random: () => 0.123 })
    const reply = answerNtpRequest(req.bytes, t1 + 3 + 250, t1 + 4 + 250)
    const sample = sampleFromReply(req, reply, t1 + 7)
    expect(sample.offsetMs).toBeCloseTo(250, 5)
    expect(sample.delayMs).toBeCloseTo(6, 5)
  })

  it('leaves bad requests unanswered, with a reason', () => {
    expect(reasonOf(() => answerNtpRequest(request().slice(0, 40), NOW, NOW))).toBe('short')
    expect(reasonOf(() => answerNtpRequest(request({ version: 1 }), NOW, NOW))).toBe('version')
    expect(reasonOf(() => answerNtpRequest(request({ version: 7 }), NOW, NOW))).toBe('version')
    for (const mode of [0, 1, 2, 4, 5, 6, 7] as const)
      expect(reasonOf(() => answerNtpRequest(request({ mode }), NOW, NOW))).toBe('mode')
    const zero = request({ transmitTimestamp: { seconds: 0, fraction: 0 } })
    expect(reasonOf(() => answerNtpRequest(zero, NOW, NOW))).toBe('zero-transmit')
  })

  it('refuses options out of their domain', () => {
    for (const bad of [
      { stratum: 0 },
      { stratum: 16 },
      { stratum: 2.5 },
      { referenceId: -1 },
      { referenceId: 'TOOLONG' },
      { precision: 200 },
      { leap: 4 as never },
      { rootDelayMs: -1 },
      { rootDispersionMs: Number.POSITIVE_INFINITY },
      { referenceMs: Number.NaN },
    ])
      expect(() => resolveServerOptions(bad), JSON.stringify(bad)).toThrow()
  })
})
