/**
 * Real runs of `pnpm cluster`, as a user starts it (the CLI, in a child process), judged from its
 * `--json` summary: in network namespaces with every kind of fault that needs them, and on
 * loopback with the process faults. Then a run interrupted with SIGINT must leave no process, no
 * namespace and no run directory behind. Bounded by the runs' own lengths (a few seconds each)
 * and generous waits; nothing asserts on wall time.
 *
 * The namespace runs need root, ip and nft: skipped with a notice without them, failed under
 * SD_REQUIRE_ALL=1 (CI).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { netnsUnavailable } from '../src/hosts.js'
import type { Summary } from '../src/summary.js'

const appDir = fileURLToPath(new URL('..', import.meta.url))
const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url))

const unavailable = netnsUnavailable()
if (unavailable && process.env.SD_REQUIRE_ALL === '1') {
  throw new Error(
    `the namespace runs of the cluster cannot run (${unavailable}) and SD_REQUIRE_ALL=1`,
  )
}
if (unavailable) console.warn(`skipping the cluster's namespace runs: ${unavailable}`)

interface Outcome {
  pid: number
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs the CLI; `onStderr` sees each progress line (and may signal the process). */
function runCli(
  args: string[],
  onStderr?: (line: string, pid: number) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: appDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let rest = ''
    // A backstop far beyond any run here: a hung CLI is killed, never left behind.
    const backstop = setTimeout(() => child.kill('SIGKILL'), 240_000)
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
      const parts = (rest + d.toString()).split('\n')
      rest = parts.pop()!
      for (const line of parts) onStderr?.(line, child.pid!)
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(backstop)
      resolve({ pid: child.pid!, code, signal, stdout, stderr })
    })
  })
}

const runDirOf = (stderr: string) => /run directory (\S+)/.exec(stderr)?.[1]

/** Processes whose command line names `text` (the run directory is in every node's config). */
function processesNaming(text: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry))
    } catch {}
  }
  return found
}

function namespacesOf(pid: number): string[] {
  if (unavailable) return []
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout
  return list.split('\n').filter((l) => l.startsWith(`sdc-${pid}-`))
}

function expectNothingLeft(o: Outcome): void {
  const dir = runDirOf(o.stderr)
  expect(dir).toBeDefined()
  expect(existsSync(dir!)).toBe(false)
  expect(processesNaming(dir!)).toEqual([])
  expect(namespacesOf(o.pid)).toEqual([])
}

function summaryOf(o: Outcome): Summary {
  if (o.code !== 0) console.error(o.stderr)
  const last = o.stdout.trim().split('\n').at(-1)!
  const summary = JSON.parse(last) as Summary
  // A failed run says why in its summary: print it, so a failure in CI can be read afterwards.
  if (o.code !== 0)
    console.error(
      `exit ${o.code}: ${JSON.stringify({ violations: summary.violations, errors: summary.errors })}`,
    )
  return summary
}

function expectSafeRun(s: Summary, nodes: number): void {
  expect(s.nodes).toBe(nodes)
  expect(s.counter).toBe(s.acknowledged)
  expect(s.acknowledged).toBeGreaterThan(0)
  expect(s.violations).toEqual([])
  expect(s.errors).toEqual([])
  expect(s.failoverMs.length).toBeGreaterThanOrEqual(1)
  expect(s.terms).toBeGreaterThanOrEqual(2)
  expect(s.ok).toBe(true)
  // Sends are reported before they leave, so a killed node's last sends are counted too.
  expect(s.messages.delivered).toBeLessThanOrEqual(s.messages.sent)
}

describe.skipIf(unavailable !== undefined)('a cluster in network namespaces', () => {
  it('survives a killed leader, loss, a partition of the leader and a killed holder: counter exact, no violation', async () => {
    const o = await runCli([
      '--n',
      '3',
      '--seconds',
      '13',
      '--fault-ms',
      '2000',
      '--chaos',
      'kill-leader,loss,partition,kill-holder',
      '--rounds',
      '1',
      '--netns',
      '--json',
    ])
    const s = summaryOf(o)
    expect(o.code).toBe(0)
    expectSafeRun(s, 3)
    expect(s.mode).toBe('netns')
    expect(s.seconds).toBe(13)
    // The last fault may not fit when the machine is slow to settle after the partition.
    const played = s.chaos.map((c) => [c.kind, c.skipped])
    expect(played.slice(0, 3)).toEqual([
      ['kill-leader', undefined],
      ['loss', undefined],
      ['partition', undefined],
    ])
    expect([undefined, 'not enough time left']).toContain(played[3]![1])
    // The rules dropped real packets, and the cut-off leader was replaced during the cut.
    expect(s.nftDrops.cut).toBeGreaterThan(0)
    expect(s.nftDrops.loss).toBeGreaterThan(0)
    expect(s.failovers.map((f) => f.cause)).toEqual(
      expect.arrayContaining(['kill-leader', 'partition']),
    )
    // Restarted nodes found their terms in their files.
    expect(s.restarts.length).toBeGreaterThanOrEqual(1)
    for (const r of s.restarts) expect(r.storedTerm).toBeGreaterThanOrEqual(r.termBefore)
    console.log(
      `namespaces: counter ${s.counter}/${s.acknowledged}, terms ${s.terms}, failovers ${s.failoverMs.join(', ')} ms, fencing rejections ${s.fencingRejections}`,
    )
    expectNothingLeft(o)
  })
})

describe('a cluster on loopback', () => {
  let stubs: string | undefined
  afterAll(() => {
    if (stubs) rmSync(stubs, { recursive: true, force: true })
  })

  it('falls back to loopback without nftables, and survives a killed leader, a killed holder and a paused holder whose late write is fenced off', async () => {
    // A machine without nftables (or without root): an `nft` that fails comes first on the PATH,
    // and the default mode falls back to loopback ports with a notice.
    stubs = mkdtempSync(join(tmpdir(), 'sd-cluster-stubs-'))
    writeFileSync(join(stubs, 'nft'), '#!/bin/sh\nexit 127\n', { mode: 0o755 })
    const env = { ...process.env, PATH: `${stubs}${delimiter}${process.env.PATH ?? ''}` }
    const o = await runCli(
      [
        '--n',
        '3',
        '--seconds',
        '14',
        '--fault-ms',
        '2000',
        '--chaos',
        'kill-leader,kill-holder,pause-holder,partition',
        '--rounds',
        '1',
        '--json',
      ],
      undefined,
      env,
    )
    const s = summaryOf(o)
    expect(o.code).toBe(0)
    expect(o.stderr).toContain('every node on loopback instead')
    expectSafeRun(s, 3)
    expect(s.mode).toBe('loopback')
    expect(s.chaos.map((c) => [c.kind, c.skipped])).toEqual([
      // Known at once: on loopback there is nothing to partition.
      ['partition', 'needs network namespaces (root, ip, nft)'],
      ['kill-leader', undefined],
      ['kill-holder', undefined],
      ['pause-holder', undefined],
    ])
    // The paused holder wrote after its lease ran out and another holder had used the counter.
    expect(s.fencingRejections).toBeGreaterThanOrEqual(1)
    expect(s.lockRecoveryMs.length).toBeGreaterThanOrEqual(2)
    console.log(
      `loopback: counter ${s.counter}/${s.acknowledged}, terms ${s.terms}, failovers ${s.failoverMs.join(', ')} ms, fencing rejections ${s.fencingRejections}`,
    )
    expectNothingLeft(o)
  })
})

describe('interrupted', () => {
  it('SIGINT in the middle of a run prints a partial summary, kills every node and deletes every namespace and file', async () => {
    let sent = false
    const o = await runCli(
      ['--n', '3', '--seconds', '60', '--json', ...(unavailable ? ['--loopback'] : ['--netns'])],
      (line, pid) => {
        // Once the workload runs (every node up, namespaces made), interrupt.
        if (!sent && line.includes('the workload starts')) {
          sent = true
          process.kill(pid, 'SIGINT')
        }
      },
    )
    expect(sent).toBe(true)
    expect(o.code).toBe(130)
    expect(o.stderr).toContain('interrupted (SIGINT)')
    // The summary of what ran until the interrupt, said to be partial.
    const s = JSON.parse(o.stdout) as Summary
    expect(s.partial?.signal).toBe('SIGINT')
    expect(s.partial!.atMs).toBeGreaterThanOrEqual(0)
    expect(s.partial!.atMs).toBeLessThan(60_000)
    expect(s.nodes).toBe(3)
    expect(s.counter).toBe(s.acknowledged)
    expect(s.violations).toEqual([])
    expectNothingLeft(o)
  })
})
