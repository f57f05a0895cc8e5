/**
 * ntpdig (ntpsec) queries our server on the real NTP port, 123, inside a network namespace of
 * its own with only a loopback interface: nothing leaves the namespace, and binding 123 there
 * disturbs no server of the machine. The server process runs in the namespace too, 250 ms ahead
 * on 127.0.0.1 and 250 ms behind on ::1. Skipped with a notice without root, ip or ntpdig;
 * failed instead under SD_REQUIRE_ALL=1.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { pollUntil } from '@sd/transport/testing'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createLoopbackNamespace,
  type LoopbackNamespace,
} from '../../../../../test-support/netns.js'
import { spawnScript, type Worker } from '../../../../../test-support/processes.js'
import { findTool, gate, retry } from '../../support/interop.js'

/** Generous for a busy 2-core machine; measured errors are below 0.1 ms. */
const TOLERANCE_S = 0.02
const QUERIES = 3
const TAG = 'sdntp'

const skip = gate('ntpdig against our server in a network namespace', ['root', 'ip', 'ntpdig'])
const workers: Worker[] = []
let namespace: LoopbackNamespace | undefined
afterAll(async () => {
  for (const w of workers) if (w.exitCode === undefined) w.proc.kill('SIGTERM')
  await pollUntil(
    () => workers.every((w) => w.exitCode !== undefined),
    'worker gone',
    10_000,
  ).catch(() => {
    for (const w of workers) w.proc.kill('SIGKILL')
  })
  namespace?.destroy()
})

/** `ntpdig -j -t 1 <host>` in the namespace: its JSON, or undefined when it got no answer. */
function ntpdig(host: string): Promise<{ offset: number; stratum: number } | undefined> {
  const [command, ...args] = [
    ...namespace!.exec,
    findTool('ntpdig') ?? 'ntpdig',
    ...['-j', '-t', '1', host],
  ]
  return new Promise((resolve) => {
    execFile(command!, args, { timeout: 15_000 }, (error, stdout) => {
      if (error) return resolve(undefined)
      try {
        resolve(JSON.parse(stdout))
      } catch {
        resolve(undefined)
      }
    })
  })
}

describe.skipIf(skip !== undefined)(
  'interop: ntpdig against our server (network namespace)',
  () => {
    it('ntpdig sees +250 ms on 127.0.0.1:123 and -250 ms on [::1]:123', async () => {
      namespace = createLoopbackNamespace(TAG)
      const worker = spawnScript(
        fileURLToPath(new URL('../../support/ntp-server-worker.ts', import.meta.url)),
        fileURLToPath(new URL('../../..', import.meta.url)),
        {
          id: 'ntp-server',
          servers: [
            { host: '127.0.0.1', port: 123, offsetMs: 250 },
            { host: '::1', port: 123, offsetMs: -250 },
          ],
        },
        workers,
        namespace.exec,
      )
      await pollUntil(
        () => worker.lines.some((l) => l.startsWith('READY')) || worker.exitCode !== undefined,
        'the server worker',
        120_000,
      )
      expect(worker.exitCode, 'the server worker exited at start').toBeUndefined()
      for (const [host, expected] of [
        ['127.0.0.1', 0.25],
        ['::1', -0.25],
      ] as const) {
        // Three queries, judged by their median: one ntpdig preempted between its timestamp and
        // its datagram on a busy machine is off by that pause (as a clock filter would see).
        const offsets: number[] = []
        for (let q = 0; q < QUERIES; q++) {
          const reply = await retry(`ntpdig ${host}`, 10, 200, () => ntpdig(host))
          console.log(`ntpdig ${host}: offset ${reply.offset} s, stratum ${reply.stratum}`)
          expect(Math.sign(reply.offset)).toBe(Math.sign(expected))
          expect(reply.stratum).toBe(10)
          offsets.push(reply.offset)
        }
        const median = offsets.sort((a, b) => a - b)[(QUERIES - 1) / 2]!
        expect(Math.abs(median - expected), `offsets ${offsets.join(', ')}`).toBeLessThan(
          TOLERANCE_S,
        )
      }
    })
  },
)
