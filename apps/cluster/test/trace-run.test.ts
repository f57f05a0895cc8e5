/**
 * The trace of real runs (`--trace`), read back from its file: a partition and a paused leader,
 * then the loss fault. Drops across the partition are there with their reason, every resend
 * points at a drop, the pause is a pause, the workload's start is marked, and the loss fault is
 * in the trace from its start to its end. Runs in network namespaces (partition and loss need
 * nft): skipped with a notice without root, ip and nft, failed under SD_REQUIRE_ALL=1. Seconds of
 * workload each; no assertion on wall time, and room for the faults on a busy machine (the chaos
 * script skips a fault the run has no time left for).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TraceDocument, TraceEvent } from '@sd/transport'
import { traceOfType } from '@sd/transport/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { namespaceRunsUnavailable, runCli } from './support/cli.js'

const unavailable = namespaceRunsUnavailable("the cluster's traced runs")

const dir = mkdtempSync(join(tmpdir(), 'sd-cluster-trace-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the CLI with `--trace` (and `--json`, for a short output); the trace it wrote. */
async function traced(
  name: string,
  args: string[],
): Promise<{ code: number | null; doc: TraceDocument; summary: string }> {
  const file = join(dir, `${name}.json`)
  const { code, stdout, stderr } = await runCli([...args, '--netns', '--json', '--trace', file])
  if (code !== 0) console.error(stderr)
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument
    return { code, doc, summary: stdout.slice(-3000) }
  } catch (error) {
    throw new Error(`no trace (exit ${code}): ${stderr.slice(-2000)}`, { cause: error })
  }
}

const ofType = <K extends TraceEvent['type']>(doc: TraceDocument, type: K) =>
  traceOfType(doc.events, type)

describe.skipIf(unavailable !== undefined)('the trace of a real run', () => {
  it('has the partition drops with their reason, resends of drops, the pause, the workload start', async () => {
    const { code, doc, summary } = await traced('partition-pause', [
      '--n',
      '3',
      '--seconds',
      // The partition, a leader again (up to 8 s on a busy machine), 1 s of calm, then the pause
      // (2.5 s) must fit: with 9 s a busy machine once left no time for the pause.
      '18',
      '--fault-ms',
      '2000',
      '--rounds',
      '1',
      '--chaos',
      'partition,pause-leader',
    ])
    expect(code).toBe(0)
    expect(ofType(doc, 'mark').map((m) => m.label)).toEqual(['workload starts'])

    const [partition] = ofType(doc, 'partition')
    const heal = ofType(doc, 'heal').find((h) => h.t >= partition!.t)
    expect(partition).toBeDefined()
    expect(heal).toBeDefined()
    const sideOf = (node: unknown) => partition!.groups.findIndex((g) => g.includes(node as never))
    const sends = new Map(ofType(doc, 'send').map((s) => [s.id, s]))
    const cut = ofType(doc, 'drop').filter((d) => d.reason === 'partition')
    expect(cut.length).toBeGreaterThan(0)
    for (const d of cut) {
      expect(d.t).toBeGreaterThanOrEqual(partition!.t)
      expect(d.t).toBeLessThan(heal!.t)
      expect(sideOf(d.from)).not.toBe(sideOf(d.to))
      expect(sends.get(d.id)?.t).toBe(d.t)
    }
    // A drop XOR deliveries, as in the simulator; a resend is a transmission of a dropped message.
    const dropped = new Set(ofType(doc, 'drop').map((d) => d.id))
    for (const d of ofType(doc, 'deliver')) expect(dropped.has(d.id)).toBe(false)
    for (const s of ofType(doc, 'send'))
      if (s.resendOf !== undefined) expect(dropped.has(s.resendOf), `${s.id}`).toBe(true)

    const [pause] = ofType(doc, 'pause')
    expect(pause, `no pause in the trace; the run's summary: ${summary}`).toBeDefined()
    const resume = ofType(doc, 'resume').find((r) => r.node === pause!.node)
    expect(resume!.t).toBeGreaterThan(pause!.t)
  }, 200_000)

  it('has the loss fault from its start to its end', async () => {
    const { code, doc, summary } = await traced('loss', [
      '--n',
      '3',
      '--seconds',
      '8',
      '--fault-ms',
      '1000',
      '--rounds',
      '1',
      '--loss',
      '20',
      '--chaos',
      'loss',
    ])
    expect(code).toBe(0)
    const loss = ofType(doc, 'loss')
    expect(
      loss.map((l) => l.percent),
      `the run's summary: ${summary}`,
    ).toEqual([20, 0])
    expect(loss[1]!.t).toBeGreaterThan(loss[0]!.t)
    // A fault for the checkers, after the workload started.
    const [mark] = ofType(doc, 'mark')
    expect(loss[0]!.t).toBeGreaterThan(mark!.t)
    for (const d of ofType(doc, 'drop').filter((x) => x.reason === 'loss')) {
      expect(d.t).toBeGreaterThanOrEqual(loss[0]!.t)
      expect(d.t).toBeLessThan(loss[1]!.t)
    }
  }, 200_000)
})
