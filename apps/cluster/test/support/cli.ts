/**
 * What the tests of real cluster runs share: the CLI started as a user starts it (a child process
 * under tsx), the check that namespace runs can happen here, and the look for what a run left
 * behind (processes naming its run directory, its namespaces).
 */
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { netnsUnavailable } from '../../src/hosts.js'

const appDir = fileURLToPath(new URL('../..', import.meta.url))
const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url))

/**
 * Why runs in network namespaces cannot happen here (no root, ip or nft), or undefined. Under
 * SD_REQUIRE_ALL=1 (CI) a missing requirement fails the file instead of skipping `what`.
 */
export function namespaceRunsUnavailable(what: string): string | undefined {
  const unavailable = netnsUnavailable()
  if (unavailable && process.env.SD_REQUIRE_ALL === '1')
    throw new Error(`${what} cannot run (${unavailable}) and SD_REQUIRE_ALL=1`)
  if (unavailable) console.warn(`skipping ${what}: ${unavailable}`)
  return unavailable
}

export interface CliOutcome {
  pid: number
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  /** Sees each line of stderr (the progress lines) as it comes, with the CLI's pid. */
  onStderr?: (line: string, pid: number) => void
  env?: NodeJS.ProcessEnv
  /** Kills a hung CLI after this long (its exit handlers clean up); far beyond any run. */
  backstopMs?: number
}

/** Runs `pnpm cluster -- ...args` as its CLI file, to its exit. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: appDir,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let rest = ''
    const backstop = setTimeout(() => child.kill('SIGKILL'), options.backstopMs ?? 240_000)
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
      if (options.onStderr === undefined) return
      const parts = (rest + d.toString()).split('\n')
      rest = parts.pop()!
      for (const line of parts) options.onStderr(line, child.pid!)
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(backstop)
      resolve({ pid: child.pid!, code, signal, stdout, stderr })
    })
  })
}

/** The run directory a run names on stderr. */
export const runDirOf = (stderr: string) => /run directory (\S+)/.exec(stderr)?.[1]

/** Processes whose command line names `text` (a run directory is in every node's config). */
export function processesNaming(text: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) found.push(Number(entry))
    } catch {}
  }
  return found
}

/** The namespaces a run of the CLI with this pid created and has not deleted. */
export function namespacesOf(pid: number): string[] {
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? ''
  return list.split('\n').filter((l) => l.startsWith(`sdc-${pid}-`))
}

/** Runs a short CLI command (`check FILE`) to its end, synchronously. */
export function runCliSync(args: readonly string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], {
    cwd: appDir,
    encoding: 'utf8',
  })
}
