/**
 * A real partition: three processes in three network namespaces on one bridge, the leader's host
 * cut off by nftables for a while, then healed. In the majority mode two processes must never
 * both believe they lead, and the majority side must elect a leader during the cut. Needs root,
 * `ip` and `nft`: skipped with a notice where the machine lacks them, failed under SD_REQUIRE_ALL=1.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pollUntil } from '@sd/transport/testing'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createNetnsHosts,
  type NetnsHosts,
  netnsUnavailable,
} from '../../../test-support/netns-hosts.js'
import { spawnMajorityGroup, timelineOf, viewOf, type Worker } from './support/election-spawn.js'

const INTERVAL_MS = 100
const TIMEOUT_MS = 500
const CUT_MS = 3000
const PORT = 47_000

const unavailable = netnsUnavailable()
if (unavailable && process.env.SD_REQUIRE_ALL === '1') {
  throw new Error(`the partition test cannot run (${unavailable}) and SD_REQUIRE_ALL=1`)
}
if (unavailable) console.warn(`skipping the partition test: ${unavailable}`)

let net: NetnsHosts | undefined
const workers: Worker[] = []
let dir: string | undefined
afterAll(async () => {
  for (const w of workers) if (w.exitCode === undefined) w.proc.kill('SIGKILL')
  await pollUntil(() => workers.every((w) => w.exitCode !== undefined), 'workers gone', 30_000)
  net?.destroy()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The stretches of time during which two or more processes each believed they lead. */
function twoLeaderTime(group: Worker[], from: number, to: number): number {
  const changes = group
    .flatMap((w) => timelineOf(w).map((c) => ({ id: w.id, self: c.leader === w.id, t: c.t })))
    .sort((a, b) => a.t - b.t)
  const self = new Map<string, boolean>()
  let total = 0
  let since: number | undefined
  for (const c of changes) {
    self.set(c.id, c.self)
    const two = [...self.values()].filter(Boolean).length >= 2
    if (two && since === undefined) since = c.t
    if (!two && since !== undefined) {
      total += Math.max(0, Math.min(c.t, to) - Math.max(since, from))
      since = undefined
    }
  }
  if (since !== undefined) total += Math.max(0, to - Math.max(since, from))
  return total
}

describe.skipIf(unavailable !== undefined)('majority mode across a real partition', () => {
  it('never two leaders at once; the majority side elects one during the cut; all agree after the heal', async () => {
    net = createNetnsHosts('sdt', 3, 212)
    dir = mkdtempSync(join(tmpdir(), 'sd-partition-'))
    const ids = net!.addresses.map((_, i) => `n${i + 1}`)
    const group = spawnMajorityGroup(
      {
        addresses: net!.addresses,
        exec: (i) => net!.exec(i),
        port: PORT,
        intervalMs: INTERVAL_MS,
        timeoutMs: TIMEOUT_MS,
        dir: dir!,
      },
      workers,
    )
    await pollUntil(() => group.every((w) => w.lines.includes('READY')), 'workers ready', 120_000)
    const agreed = () => {
      const views = group.map(viewOf)
      return views.every((v) => v && v.leader === views[0]!.leader) ? views[0]!.leader : undefined
    }
    await pollUntil(() => agreed() !== undefined, 'agreement before the cut', 60_000)
    const leader = agreed()!
    const cutIndex = ids.indexOf(leader)
    const now = () => performance.timeOrigin + performance.now()
    const start = now()
    net.cut(cutIndex)
    await new Promise((resolve) => setTimeout(resolve, CUT_MS))
    const healedAt = now()
    net.heal()
    await pollUntil(() => agreed() !== undefined, 'agreement after the heal', 60_000)
    const majority = group.filter((_, i) => i !== cutIndex)
    // The majority side had a leader of its own during the cut.
    const majorityLeaders = majority.flatMap((w) =>
      timelineOf(w).filter(
        (c) => c.t > start && c.t < healedAt && c.leader !== undefined && c.leader !== leader,
      ),
    )
    expect(majorityLeaders.length).toBeGreaterThan(0)
    const overlap = twoLeaderTime(group, start, now())
    console.log(
      `majority mode: cut ${leader} off for ${CUT_MS} ms; time with two leaders: ${overlap.toFixed(0)} ms`,
    )
    expect(overlap).toBe(0)
  })
})
