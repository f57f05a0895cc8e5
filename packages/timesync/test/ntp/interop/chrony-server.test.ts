/**
 * Our client against chronyd serving its local clock on loopback: both read the same system
 * clock, so the offset measured must be near 0. chronyd runs with -x and without CAP_SYS_TIME
 * (see test/support/chrony.ts). Skipped with a notice without root, chronyd or capsh; failed
 * instead under SD_REQUIRE_ALL=1.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { freePorts } from '../../../../../test-support/processes.js'
import { type NtpQueryResult, queryNtp } from '../../../src/ntp/udp.js'
import { type Chronyd, startChronyd } from '../../support/chrony.js'
import { gate, retry } from '../../support/interop.js'

/** Generous for a busy 2-core machine; measured offsets are tens of microseconds. */
const TOLERANCE_MS = 5

const skip = gate('queryNtp against chronyd', ['root', 'chronyd', 'chronyc', 'capsh'])
const daemons: Chronyd[] = []
afterAll(async () => {
  for (const d of daemons) await d.stop()
})

describe.skipIf(skip !== undefined)('interop: our client, chronyd as the server', () => {
  it(`measures an offset within ±${TOLERANCE_MS} ms of 0 against chronyd on loopback`, async () => {
    const [port] = await freePorts(1)
    const chronyd = await startChronyd(
      [`port ${port}`, 'bindaddress 127.0.0.1', 'allow 127.0.0.1', 'local stratum 8'],
      daemons,
    )
    // chronyd answers a few hundred ms after it starts: ask until it does, boundedly.
    const result = await retry<NtpQueryResult>(
      'a reply from chronyd',
      30,
      200,
      () =>
        queryNtp('127.0.0.1', { port: port!, samples: 8, timeoutMs: 2000 }).catch(() => undefined),
      () => chronyd.log.join('\n'),
    )
    console.log(
      `chronyd server: offset ${result.offsetMs.toFixed(3)} ms, delay ${result.delayMs.toFixed(3)} ms, ` +
        `error bound ±${result.errorBoundMs.toFixed(3)} ms, jitter ${result.jitterMs.toFixed(3)} ms, ` +
        `${result.samples.length} samples in ${result.attempts} requests`,
    )
    expect(result.stratum).toBe(8) // `local stratum 8`
    expect(Math.abs(result.offsetMs)).toBeLessThan(TOLERANCE_MS)
  })
})
