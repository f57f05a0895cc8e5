import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { pollUntil } from '../testing/index.js'
import { createUdpTransport, type UdpTransport } from './index.js'

const script = fileURLToPath(new URL('../../test/udp/support/peer-process.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('../..', import.meta.url))
const KEY = 'multi-process-shared-key'

interface Child {
  id: string
  proc: ChildProcess
  port: number
}
const children: Child[] = []
let parent: UdpTransport<Record<string, unknown>> | undefined

afterAll(async () => {
  for (const c of children) c.proc.kill('SIGKILL')
  await parent?.close()
})

async function start(id: string): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, id, KEY], {
    cwd: packageDir,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const child = { id, proc, port: 0 }
  children.push(child) // killed by afterEach whatever happens below
  child.port = await new Promise<number>((resolve, reject) => {
    let out = ''
    // Only a child that never starts trips this: generous, so a slow machine never does.
    const stuck = setTimeout(
      () => reject(new Error(`child ${id} printed no READY in 120 s`)),
      120_000,
    )
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /READY (\d+)/.exec(out)
      if (match) {
        clearTimeout(stuck)
        resolve(Number(match[1]))
      }
    })
    proc.once('exit', (code) => {
      clearTimeout(stuck)
      reject(new Error(`child ${id} exited with ${code} before READY`))
    })
  })
  return child
}

function tell(child: Child, command: unknown): void {
  child.proc.stdin!.write(`${JSON.stringify(command)}\n`)
}

describe('real OS processes over UDP', () => {
  it('three processes exchange messages exactly once and in order, and survive a SIGKILL restart', async () => {
    parent = await createUdpTransport<Record<string, unknown>>({ id: 'parent', key: KEY })
    const reports: Record<string, unknown>[] = []
    parent.onMessage((_from, msg) => reports.push(msg))
    const [c1, c2, c3] = await Promise.all(['c1', 'c2', 'c3'].map(start))
    const all = [c1!, c2!, c3!]
    const book = (list: Child[]) => ({
      parent: `127.0.0.1:${parent!.address.port}`,
      ...Object.fromEntries(list.map((c) => [c.id, `127.0.0.1:${c.port}`])),
    })
    for (const c of all) parent.setPeer(c.id, `127.0.0.1:${c.port}`)
    const count = 300
    for (const c of all) {
      const others = all.filter((o) => o !== c).map((o) => o.id)
      tell(c, { peers: book(all), expect: { from: others, count } })
    }
    for (const c of all) for (const o of all) if (o !== c) tell(c, { send: { to: o.id, count } })
    const received = () => reports.filter((r) => r.event === 'received')
    await pollUntil(() => received().length === 3, 'reports from the three processes')
    for (const r of received()) {
      expect(r.outOfOrder).toBe(0)
      expect(Object.values(r.counts as Record<string, number>)).toEqual([count, count])
    }

    // SIGKILL c3 and start a new c3 elsewhere: c1 must notice the new incarnation and go on.
    c3!.proc.kill('SIGKILL')
    await new Promise((resolve) => c3!.proc.once('exit', resolve))
    const c3b = await start('c3')
    parent.setPeer('c3', `127.0.0.1:${c3b.port}`)
    tell(c3b, { peers: book([c1!, c2!, c3b]), expect: { from: ['c1'], count: 100 } })
    tell(c1!, { peers: { c3: `127.0.0.1:${c3b.port}` }, send: { to: 'c3', count: 100 } })
    await pollUntil(
      () =>
        received().some((r) => r.from === 'c3' && (r.counts as Record<string, number>).c1 === 100),
      'c1 -> new c3',
      15_000,
    )
    const restart = reports.find((r) => r.event === 'signal' && r.from === 'c1')
    expect(restart?.signal).toEqual({ type: 'peer-restarted', peer: 'c3' })
    expect(
      received().find((r) => r.from === 'c3' && (r.counts as Record<string, number>).c1 === 100)
        ?.outOfOrder,
    ).toBe(0)
  })
})
