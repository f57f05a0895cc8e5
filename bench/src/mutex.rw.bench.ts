/**
 * Read-write lock: 1 writer and 7 readers (8 client processes on loopback), each looping acquire ->
 * a tiny critical section -> release a bounded number of times: our centralized lock (readers ask
 * `{ mode: 'shared' }`) against a Redis read-write lock written the usual way (locks-redis-rw.ts).
 * Reads and writes per second, acquire latency, CPU per operation, and a correctness check of every
 * run (no reader beside a writer). Two points: our lock as it comes with the Redis lock's policy
 * (`readers: 'writers-first'`, whose default burst lets a writer that loops go first for up to 32
 * writes in a row), and with `burst: 1` (one write per turn of the readers: the cost of strict
 * turns, beside it). Without redis-server it prints why and reports nothing.
 * Environment: see lib/locks-bench.ts.
 */
import { runFamilyBench } from './lib/locks-bench.js'
import type { ClientRole } from './lib/locks-protocol.js'
import type { BenchResult } from './lib/result.js'

const roles: ClientRole[] = [
  { kind: 'writer' },
  ...Array.from({ length: 7 }, () => ({ kind: 'reader' }) as const),
]

/**
 * The burst of the second point: a writer's grant covers up to this many writes in a row
 * (SD_LOCKS_BURST, default 1: strict turns).
 */
const BURST = Number(process.env.SD_LOCKS_BURST ?? 1)

export default async function rwBench(): Promise<BenchResult[]> {
  // The Redis lock prefers writers (a waiting writer turns new readers away): ours runs the same
  // policy, `readers: 'writers-first'`, unless SD_LOCKS_READERS names another ('fifo', the default
  // of centralized(), or 'readers-first'). Inherited by the worker processes.
  process.env.SD_LOCKS_READERS ??= 'writers-first'
  const readers = process.env.SD_LOCKS_READERS
  const setup = (options: string) =>
    `1 writer and 7 reader client processes on loopback; the lock server (our coordinator, the redis-server) is one more process; ours with ${options}`
  const figures = [
    { kind: 'reader', suffix: 'reads', unit: 'reads/s' },
    { kind: 'writer', suffix: 'writes', unit: 'writes/s' },
  ] as const
  return runFamilyBench('mutex.rw', [
    {
      name: 'mutex.rw.centralized.w1r7',
      roles,
      ours: 'centralized',
      baseline: 'redis-rw',
      figures: [...figures],
      setup: setup(`readers: '${readers}' and its default burst`),
    },
    {
      // With BURST 1, the writer gets one write per turn of the readers: what strict turns cost.
      name: `mutex.rw.centralized-burst${BURST}.w1r7`,
      roles,
      ours: 'centralized',
      oursOptions: { burst: BURST },
      baseline: 'redis-rw',
      figures: [...figures],
      setup: setup(`readers: '${readers}', burst: ${BURST}`),
    },
  ])
}
