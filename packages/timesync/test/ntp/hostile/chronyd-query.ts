/**
 * `chronyd -Q`: chrony's one-shot measurement of a server ("System clock wrong by X seconds",
 * X = server minus local), as a real client of our server. It never sets the clock: -Q only
 * measures, -x forbids it anyway, and capsh drops CAP_SYS_TIME (REAL-PEERS.md).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findTool } from '../../support/interop.js'

/** chronyd's measured offset of 127.0.0.1:`port`, ms; rejects with its output when it has none. */
export function chronydQuery(port: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sd-ntp-chrony-q-'))
  const directives = [
    `server 127.0.0.1 port ${port} iburst maxsamples 1`,
    `pidfile ${join(dir, 'q.pid')}`,
  ]
  const chronyd = findTool('chronyd') ?? 'chronyd'
  const command = `exec '${chronyd}' -Q -x -u root -t 5 ${directives.map((d) => `'${d}'`).join(' ')}`
  return new Promise((resolve, reject) => {
    execFile(
      findTool('capsh') ?? 'capsh',
      ['--drop=cap_sys_time', '--', '-c', command],
      { timeout: 20_000 },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true })
        const output = `${stdout}${stderr}`
        const match = /System clock wrong by (-?[\d.]+) seconds/.exec(output)
        if (match) resolve(Number(match[1]) * 1000)
        else reject(new Error(`chronyd -Q measured nothing (${error?.message}): ${output.trim()}`))
      },
    )
  })
}
