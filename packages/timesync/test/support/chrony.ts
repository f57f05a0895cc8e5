/**
 * chronyd for the interoperability tests, made unable to touch the system clock twice over:
 * started with -x (never control the clock) inside `capsh --drop=cap_sys_time` (cannot, even if
 * it tried), and checked after start: its CapEff must lack CAP_SYS_TIME. Each instance gets its
 * own temporary directory (config, pidfile, command socket, drift file); `stop` removes it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findTool, isAlive, retry } from './interop.js'

const PREFIX = 'sd-ntp-chrony-'
const CAP_SYS_TIME = 25n

export interface Chronyd {
  readonly dir: string
  readonly socket: string
  /** chronyd's log (stderr with -d), for failure messages. */
  readonly log: string[]
  /** SIGTERM, then SIGKILL if it lingers; removes the directory. Idempotent. */
  stop(): Promise<void>
}

/**
 * Starts chronyd with `lines` plus the per-instance lines (cmdport 0, command socket, pidfile,
 * drift file) and waits until its pidfile names a process that lacks CAP_SYS_TIME. Pushes it on
 * `into` first, for the caller's cleanup.
 */
export async function startChronyd(lines: readonly string[], into: Chronyd[]): Promise<Chronyd> {
  deleteOrphans()
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`))
  const socket = join(dir, 'chronyd.sock')
  const pidfile = join(dir, 'chronyd.pid')
  const conf = join(dir, 'chronyd.conf')
  // chrony refuses comments after a directive: one directive per line, nothing else.
  writeFileSync(
    conf,
    `${[...lines, 'cmdport 0', `bindcmdaddress ${socket}`, `pidfile ${pidfile}`, `driftfile ${join(dir, 'drift')}`].join('\n')}\n`,
  )
  const chronyd = findTool('chronyd') ?? 'chronyd'
  const proc: ChildProcess = spawn(
    findTool('capsh') ?? 'capsh',
    ['--drop=cap_sys_time', '--', '-c', `exec '${chronyd}' -x -d -u root -f '${conf}'`],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  const log: string[] = []
  proc.stderr?.on('data', (chunk: Buffer) => log.push(...chunk.toString().trimEnd().split('\n')))
  let exited = proc.exitCode !== null
  proc.once('exit', () => {
    exited = true
  })
  let stopped: Promise<void> | undefined
  const instance: Chronyd = {
    dir,
    socket,
    log,
    stop: () => {
      stopped ??= (async () => {
        const pid = readPid(pidfile)
        proc.kill('SIGTERM')
        if (pid !== undefined && pid !== proc.pid && isAlive(pid)) process.kill(pid, 'SIGTERM')
        await retry('chronyd to exit', 100, 100, () => (exited ? true : undefined)).catch(() => {
          proc.kill('SIGKILL')
          if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL')
        })
        rmSync(dir, { recursive: true, force: true })
      })()
      return stopped
    },
  }
  into.push(instance)
  const pid = await retry(
    'chronyd to write its pidfile',
    200,
    100,
    () => {
      if (exited) throw new Error(`chronyd exited at start:\n${log.join('\n')}`)
      return readPid(pidfile)
    },
    () => log.join('\n'),
  )
  const effective = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^CapEff:\s*([0-9a-f]+)/m)
  if (!effective || (BigInt(`0x${effective[1]}`) >> CAP_SYS_TIME) & 1n) {
    await instance.stop()
    throw new Error(`chronyd (pid ${pid}) holds CAP_SYS_TIME: refusing to go on`)
  }
  return instance
}

/** `chronyc -n -h <socket> <args>`: its stdout, or undefined when it failed (not ready yet). */
export function chronyc(instance: Chronyd, ...args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      findTool('chronyc') ?? 'chronyc',
      ['-n', '-h', instance.socket, ...args],
      { timeout: 10_000 },
      (error, stdout) => resolve(error ? undefined : stdout),
    )
  })
}

/** What `chronyc -c sources` says of one source. */
export interface SourceLine {
  reach: number
  /** The last sample's measured offset, seconds: local clock minus the source's. */
  lastSampleS: number
  /** chronyd's error bound on that sample, seconds (half the round trip's delay, and dispersion). */
  lastSampleErrorS: number
}

/** The CSV line of `sources -c` for `address`, if chronyd knows it and has a sample. */
export async function sourceOf(
  instance: Chronyd,
  address: string,
): Promise<SourceLine | undefined> {
  const out = await chronyc(instance, '-c', 'sources')
  // ^,?,127.0.0.1,10,-4,377,0,-0.250033766,-0.250033766,0.000179582
  const fields = out
    ?.split('\n')
    .map((line) => line.split(','))
    .find((f) => f[2] === address)
  if (!fields || fields.length < 10 || fields[5] === '0') return undefined
  return {
    reach: Number.parseInt(fields[5]!, 8),
    lastSampleS: Number(fields[8]),
    lastSampleErrorS: Number(fields[9]),
  }
}

/**
 * What `chronyc ntpdata <address>` says: offset (source minus local, s), the round trip's delay
 * (s; the offset is within half of it of the truth) and valid replies.
 */
export async function ntpDataOf(
  instance: Chronyd,
  address: string,
): Promise<{ offsetS: number; delayS: number; validRx: number } | undefined> {
  const out = await chronyc(instance, 'ntpdata', address)
  const offset = out?.match(/^Offset\s*:\s*([-+0-9.e]+) seconds/m)
  const delay = out?.match(/^Peer delay\s*:\s*([-+0-9.e]+) seconds/m)
  const valid = out?.match(/^Total valid RX\s*:\s*(\d+)/m)
  if (!offset || !delay || !valid) return undefined
  return { offsetS: Number(offset[1]), delayS: Number(delay[1]), validRx: Number(valid[1]) }
}

function readPid(pidfile: string): number | undefined {
  try {
    const pid = Number(readFileSync(pidfile, 'utf8').trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** chronyd of a test run that was killed before its cleanup: stop it and remove its directory. */
function deleteOrphans(): void {
  const pattern = new RegExp(`^${PREFIX}(\\d+)-`)
  for (const name of readdirSync(tmpdir())) {
    const owner = pattern.exec(name)?.[1]
    if (owner === undefined || isAlive(Number(owner))) continue
    const dir = join(tmpdir(), name)
    const pid = readPid(join(dir, 'chronyd.pid'))
    if (pid !== undefined && isAlive(pid)) {
      // Only a chronyd whose command line names this directory.
      if (safeCmdline(pid).includes(dir)) process.kill(pid, 'SIGKILL')
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

function safeCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return ''
  }
}
