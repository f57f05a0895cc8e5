/**
 * `--chaos loss` alone repeats its episodes while the run has time, as every other fault does
 * (it played one episode and stopped: a 20 s run had 2.5 s of loss). A real run in network
 * namespaces (loss needs nft): skipped with a notice without root, ip and nft, failed under
 * SD_REQUIRE_ALL=1.
 */
import { describe, expect, it } from 'vitest'
import type { Summary } from '../src/summary.js'
import { namespaceRunsUnavailable, runCli } from './support/cli.js'

const unavailable = namespaceRunsUnavailable("the cluster's loss run")

describe.skipIf(unavailable !== undefined)('--chaos loss alone', () => {
  it('plays loss episodes one after the other until the run ends, never two at once', async () => {
    const o = await runCli([
      '--n',
      '3',
      '--seconds',
      '12',
      '--fault-ms',
      '1000',
      '--chaos',
      'loss',
      '--netns',
      '--json',
    ])
    if (o.code !== 0) console.error(o.stderr)
    const s = JSON.parse(o.stdout.trim().split('\n').at(-1)!) as Summary
    expect(o.code).toBe(0)
    const episodes = s.chaos.filter((c) => c.kind === 'loss' && c.skipped === undefined)
    // 12 s at one episode (1 s) plus its settling (1 s) every 2 s or so: 3 at least on a busy machine.
    expect(episodes.length, JSON.stringify(s.chaos)).toBeGreaterThanOrEqual(3)
    for (let i = 1; i < episodes.length; i++)
      expect(episodes[i]!.atMs).toBeGreaterThanOrEqual(
        episodes[i - 1]!.atMs! + episodes[i - 1]!.durationMs!,
      )
    expect(s.nftDrops.loss).toBeGreaterThan(0)
    expect(s.violations).toEqual([])
  }, 200_000)
})
