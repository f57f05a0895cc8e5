/**
 * `chronyd -Q`: chrony's one-shot measurement of a server, printed as "System clock wrong by X
 * seconds" (X = server minus local). Never sets the clock: -Q only measures, and capsh drops
 * CAP_SYS_TIME as a second belt.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Why chronyd -Q cannot run here, or undefined. */
export function chronyUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'chronyd -Q needs root (it writes a pidfile and binds)'
  for (const tool of ['chronyd', 'capsh']) {
    const found = spawnSync('sh', ['-c', `PATH="$PATH:/usr/sbin:/sbin" command -v ${tool}`])
    if (found.status !== 0) return `${tool} is missing (Debian packages chrony, libcap2-bin)`
  }
  return undefined
}

/** Chrony's estimate of `server`'s offset (ms), from `samples` exchanges. */
export function chronyOffsetMs(port: number, samples: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sd-chrony-q-'))
  const directives = [
    `server 127.0.0.1 port ${port} iburst maxsamples ${samples}`,
    `pidfile ${join(dir, 'q.pid')}`,
  ]
  const quoted = directives.map((d) => `'${d}'`).join(' ')
  const child = spawn(
    'capsh',
    ['--drop=cap_sys_time', '--', '-c', `exec chronyd -Q -u root -t 20 ${quoted}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.once('close', () => {
      rmSync(dir, { recursive: true, force: true })
      const match = /System clock wrong by (-?[\d.]+) seconds/.exec(output)
      if (match) resolve(Number(match[1]) * 1000)
      else reject(new Error(`chronyd -Q gave no measurement: ${output.trim().slice(-300)}`))
    })
  })
}
