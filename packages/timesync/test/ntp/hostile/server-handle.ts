/** The test's side of hostile/server-process.ts: start it, ask its counters. */
import { fileURLToPath } from 'node:url'
import { isNonNegInt, shape } from '@sd/transport'
import { pollUntil } from '@sd/transport/testing'
import { spawnScript, type Worker } from '../../../../../test-support/processes.js'
import type { NtpServerCounts } from '../../../src/ntp/udp-server.js'
import { checkedJson } from './checked-json.js'

/** Starts the server process (pushed on `into` first, for cleanup); resolves once it is bound. */
export async function serverProcess(
  into: Worker[],
  config: { offsetMs?: number } = {},
): Promise<{ worker: Worker; port: number }> {
  const worker = spawnScript(
    fileURLToPath(new URL('./server-process.ts', import.meta.url)),
    fileURLToPath(new URL('../../..', import.meta.url)),
    { id: 'ntp-server', ...config },
    into,
  )
  await pollUntil(
    () => worker.lines.some((l) => l.startsWith('READY')) || worker.exitCode !== undefined,
    'the server process to be ready',
    30_000,
  )
  const ready = worker.lines.find((l) => l.startsWith('READY'))
  if (ready === undefined) throw new Error(`the server process exited: ${worker.exitCode}`)
  return { worker, port: Number(ready.split(' ')[1]) }
}

/** The server process's counters, asked on its stdin. */
export async function statsOf(worker: Worker): Promise<NtpServerCounts> {
  const before = worker.lines.length
  worker.proc.stdin!.write('stats\n')
  await pollUntil(
    () => worker.lines.slice(before).some((l) => l.startsWith('STATS')),
    'the server process to report its counters',
    10_000,
  )
  const line = worker.lines.slice(before).find((l) => l.startsWith('STATS'))!
  const isCounts = shape({ answered: isNonNegInt, rejected: isNonNegInt, unsent: isNonNegInt })
  return checkedJson(line.slice('STATS '.length), isCounts, 'the server counters')
}

/**
 * Waits until the server process has handled `total` datagrams in all (answered, refused or
 * unsent), or `ms` have passed (a datagram the kernel dropped is never handled); resolves to the
 * counters last read.
 */
export async function handledUpTo(
  worker: Worker,
  total: number,
  ms: number,
): Promise<NtpServerCounts> {
  const deadline = performance.now() + ms
  for (;;) {
    const stats = await statsOf(worker)
    if (stats.answered + stats.rejected + stats.unsent >= total || performance.now() >= deadline)
      return stats
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** SIGTERM to every worker still running, SIGKILL to those that linger. */
export async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  for (const w of workers) if (w.exitCode === undefined) w.proc.kill('SIGTERM')
  await pollUntil(
    () => workers.every((w) => w.exitCode !== undefined),
    'workers gone',
    10_000,
  ).catch(() => {
    for (const w of workers) if (w.exitCode === undefined) w.proc.kill('SIGKILL')
  })
}
