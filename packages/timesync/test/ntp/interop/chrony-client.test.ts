/**
 * chronyd as a client of our server, whose clock is 250 ms ahead, then 250 ms behind: chronyd
 * must measure that offset with the right sign. `noselect` keeps the source out of chronyd's
 * selection (its raw samples stay in `sources`), and chronyd runs with -x and without
 * CAP_SYS_TIME (see test/support/chrony.ts). Skipped with a notice without root, chronyd, chronyc
 * or capsh; failed instead under SD_REQUIRE_ALL=1.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { freePorts } from '../../../../../test-support/processes.js'
import { createNtpServer, type NtpServerHandle } from '../../../src/ntp/udp.js'
import { type Chronyd, ntpDataOf, sourceOf, startChronyd } from '../../support/chrony.js'
import { gate, retry } from '../../support/interop.js'

/**
 * Beyond the sample's own bound: a sample's offset is within half its round trip's delay of the
 * truth (chronyd's error bound adds dispersion), and on a busy 2-core machine a reply can wait
 * tens of ms for our server's turn; that wait is in the delay. Measured errors on a quiet one are
 * below 0.1 ms.
 */
const TOLERANCE_S = 0.02

/** Whether `measured` is within `expected`'s tolerance, widened by the sample's own bound. */
/** `measured` within TOLERANCE_S + `boundS` of `expected`; a failure prints the distance and the bound. */
const expectNear = (measured: number, expected: number, boundS: number) =>
  expect(Math.abs(measured - expected)).toBeLessThan(TOLERANCE_S + boundS)

const skip = gate('chronyd as a client of our server', ['root', 'chronyd', 'chronyc', 'capsh'])
const daemons: Chronyd[] = []
let server: NtpServerHandle | undefined
afterAll(async () => {
  for (const d of daemons) await d.stop()
  await server?.close()
})

/** Waits for `more` valid replies after the current count, then reads both views of chronyd. */
async function measured(chronyd: Chronyd, more: number, since: number) {
  const data = await retry(
    `${more} more valid replies seen by chronyd`,
    400,
    100,
    async () => {
      const d = await ntpDataOf(chronyd, '127.0.0.1')
      return d && d.validRx >= since + more ? d : undefined
    },
    () => chronyd.log.join('\n'),
  )
  const source = await retry('the source line', 50, 100, () => sourceOf(chronyd, '127.0.0.1'))
  return { ...data, lastSampleS: source.lastSampleS, lastSampleErrorS: source.lastSampleErrorS }
}

describe.skipIf(skip !== undefined)('interop: chronyd as a client of our server', () => {
  it('sees our server +250 ms ahead, then -250 ms behind, with the right signs', async () => {
    const [port] = await freePorts(1)
    server = await createNtpServer({ port: port!, offsetMs: 250 })
    const chronyd = await startChronyd(
      [`server 127.0.0.1 port ${port} iburst minpoll -4 maxpoll -4 noselect`, 'port 0'],
      daemons,
    )
    const ahead = await measured(chronyd, 3, 0)
    console.log(
      `chronyd client, server +250 ms: ntpdata offset ${ahead.offsetS.toFixed(6)} s (delay ${ahead.delayS.toFixed(6)} s), sources last sample ${ahead.lastSampleS.toFixed(6)} s +/- ${ahead.lastSampleErrorS.toFixed(6)} s`,
    )
    // ntpdata: the server minus us; sources: us minus the server.
    expectNear(ahead.offsetS, 0.25, ahead.delayS / 2)
    expectNear(ahead.lastSampleS, -0.25, ahead.lastSampleErrorS)

    await server.close()
    server = await createNtpServer({ port: port!, offsetMs: -250 })
    // Samples from the new server: the sign of the last sample flips; then two more to be sure.
    const flipped = await retry(
      'a sample of the server 250 ms behind',
      400,
      100,
      async () => {
        const d = await ntpDataOf(chronyd, '127.0.0.1')
        return d && d.offsetS < 0 ? d : undefined
      },
      () => chronyd.log.join('\n'),
    )
    const behind = await measured(chronyd, 2, flipped.validRx)
    console.log(
      `chronyd client, server -250 ms: ntpdata offset ${behind.offsetS.toFixed(6)} s (delay ${behind.delayS.toFixed(6)} s), sources last sample ${behind.lastSampleS.toFixed(6)} s +/- ${behind.lastSampleErrorS.toFixed(6)} s`,
    )
    expectNear(behind.offsetS, -0.25, behind.delayS / 2)
    expectNear(behind.lastSampleS, 0.25, behind.lastSampleErrorS)
    expect(server.rejected).toBe(0)
  })
})
