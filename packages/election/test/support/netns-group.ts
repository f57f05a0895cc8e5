/**
 * The set-up the real-partition tests share: a majority group of worker processes, one per
 * network namespace on one bridge, ready to be cut and healed, and torn down after the file's
 * tests. Needs root, `ip` and `nft`: `netnsSkip` says why not, and fails under SD_REQUIRE_ALL=1.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pollUntil } from '@sd/transport/testing'
import { afterAll } from 'vitest'
import {
  createNetnsHosts,
  type NetnsHosts,
  netnsUnavailable,
} from '../../../../test-support/netns-hosts.js'
import { spawnMajorityGroup, viewOf, type Worker } from './election-spawn.js'

/** Why `test` cannot run here (it is skipped, with a notice), or undefined when it can. */
export function netnsSkip(test: string): string | undefined {
  const unavailable = netnsUnavailable()
  if (unavailable && process.env.SD_REQUIRE_ALL === '1') {
    throw new Error(`${test} cannot run (${unavailable}) and SD_REQUIRE_ALL=1`)
  }
  if (unavailable) console.warn(`skipping ${test}: ${unavailable}`)
  return unavailable
}

export interface HostGroupOptions {
  /** Namespace name prefix and the third octet of the bridge's subnet: unique per test file. */
  prefix: string
  subnet: number
  hosts: number
  port: number
  intervalMs: number
  timeoutMs: number
}

export interface HostGroup {
  net: NetnsHosts
  /** `n1`, `n2`...: the workers' ids, in host order. */
  ids: string[]
  group: Worker[]
  /** The leader and term every process follows, if they all agree. */
  agreed: () => { leader: string; term: number } | undefined
}

/** Call at a test file's top level: it returns the group's launcher and cleans up after all. */
export function useMajorityHosts(): (options: HostGroupOptions) => Promise<HostGroup> {
  let net: NetnsHosts | undefined
  const workers: Worker[] = []
  let dir: string | undefined
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === undefined) w.proc.kill('SIGKILL')
    await pollUntil(() => workers.every((w) => w.exitCode !== undefined), 'workers gone', 30_000)
    net?.destroy()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
  return async (options) => {
    const hosts = createNetnsHosts(options.prefix, options.hosts, options.subnet)
    net = hosts
    const folder = mkdtempSync(join(tmpdir(), `sd-${options.prefix}-`))
    dir = folder
    const group = spawnMajorityGroup(
      {
        addresses: hosts.addresses,
        exec: (i) => hosts.exec(i),
        port: options.port,
        intervalMs: options.intervalMs,
        timeoutMs: options.timeoutMs,
        dir: folder,
      },
      workers,
    )
    await pollUntil(() => group.every((w) => w.lines.includes('READY')), 'workers ready', 120_000)
    const agreed = () => {
      const views = group.map(viewOf)
      const first = views[0]
      return first && views.every((v) => v && v.leader === first.leader && v.term === first.term)
        ? { leader: first.leader, term: first.term }
        : undefined
    }
    return { net: hosts, ids: hosts.addresses.map((_, i) => `n${i + 1}`), group, agreed }
  }
}
