/** `sd ntp serve` and `sd ntp query` on loopback: in-process, then `sd` as a child process. */
import { spawn } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { main, mainAsync } from '../cli.js'

function io() {
  const out: string[] = []
  const err: string[] = []
  return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } }
}

async function freePort(): Promise<number> {
  const socket = createSocket('udp4')
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const { port } = socket.address()
  await new Promise<void>((resolve) => socket.close(resolve))
  return port
}

async function waitFor(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 100))
  if (!done()) throw new Error(`gave up waiting for ${what}`)
}

/**
 * The offset measured holds the server's true offset within the bound the query states to the
 * server's clock (half the round trip plus the clocks' precision): a fixed tolerance would fail on
 * a busy machine, where a reply waits for the event loop and the round trip grows.
 */
function expectWithinItsBound(
  result: { offsetMs: number; serverErrorBoundMs: number },
  trueOffsetMs: number,
): void {
  expect(
    Math.abs(result.offsetMs - trueOffsetMs),
    `offset ${result.offsetMs} ms ± ${result.serverErrorBoundMs} ms, true ${trueOffsetMs} ms`,
  ).toBeLessThanOrEqual(result.serverErrorBoundMs)
}

const children: Array<ReturnType<typeof spawn>> = []
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
})

describe('sd ntp', () => {
  it('query refuses a server two years off (offset-limit), unless --max-offset none', async () => {
    const server = io()
    const stop = new AbortController()
    const twoYears = String(2 * 365 * 86_400_000)
    const serving = mainAsync(
      ['ntp', 'serve', '--port', '0', '--offset', twoYears],
      server.io,
      stop.signal,
    )
    await waitFor(() => server.out.length > 0, 'the serving line')
    const port = /:(\d+),/.exec(server.out[0]!)![1]!
    const refused = io()
    const args = ['ntp', 'query', `127.0.0.1:${port}`, '--samples', '1', '--timeout', '3000']
    expect(await mainAsync(args, refused.io)).toBe(1)
    expect(refused.err.join('\n')).toContain('offset-limit')
    const accepted = io()
    expect(await mainAsync([...args, '--max-offset', 'none', '--json'], accepted.io)).toBe(0)
    const offset = (JSON.parse(accepted.out[0]!) as { offsetMs: number }).offsetMs
    expect(Math.abs(offset - Number(twoYears))).toBeLessThan(1000)
    stop.abort()
    await serving
  })

  it('serve --offset 250, then query --json: offset about +250 ms', async () => {
    const server = io()
    const stop = new AbortController()
    const serving = mainAsync(
      ['ntp', 'serve', '--port', '0', '--offset', '250'],
      server.io,
      stop.signal,
    )
    await waitFor(() => server.out.length > 0, 'the serving line')
    const line = server.out[0]!
    expect(line).toMatch(
      /^sd ntp: serving NTP on 127\.0\.0\.1:\d+, clock offset \+250 ms, stratum 10/,
    )
    const port = /:(\d+),/.exec(line)![1]!
    const client = io()
    const code = await mainAsync(['ntp', 'query', `127.0.0.1:${port}`, '--json'], client.io)
    expect(code).toBe(0)
    expect(client.out).toHaveLength(1)
    const result = JSON.parse(client.out[0]!)
    expect(result).toMatchObject({
      address: '127.0.0.1',
      port: Number(port),
      stratum: 10,
      samples: 4,
    })
    expectWithinItsBound(result, 250)
    // The error bound is the root distance; the bound to the server's clock alone is apart.
    expect(result.errorBoundMs).toBe(result.rootDistanceMs)
    expect(result.serverErrorBoundMs).toBeLessThanOrEqual(result.errorBoundMs)
    // The human form says the same, in five lines.
    const human = io()
    expect(await mainAsync(['ntp', 'query', `127.0.0.1:${port}`, '--samples', '2'], human.io)).toBe(
      0,
    )
    const humanOffset = /^offset {3}([+-]\d+\.\d{3}) ms/.exec(human.out[1]!)
    const humanBound =
      /^error {4}±\d+\.\d{3} ms \(root distance.*±(\d+\.\d{3}) ms to the server's clock\)$/.exec(
        human.out[3]!,
      )
    expect(humanOffset, human.out[1]).not.toBeNull()
    expect(humanBound, human.out[3]).not.toBeNull()
    // Printed to the microsecond: the rounding of both is allowed for.
    expectWithinItsBound(
      { offsetMs: Number(humanOffset![1]), serverErrorBoundMs: Number(humanBound![1]) + 0.001 },
      250,
    )
    stop.abort()
    expect(await serving).toBe(0)
    expect(server.err.join('\n')).toMatch(/stopped; 6 requests answered, 0 refused, 0 unanswerable/)
  })

  it('IPv6: serve on ::1, query [::1]:PORT', async () => {
    const server = io()
    const stop = new AbortController()
    const serving = mainAsync(
      ['ntp', 'serve', '--host', '::1', '--port', '0', '--offset', '-40'],
      server.io,
      stop.signal,
    )
    await waitFor(() => server.out.length > 0, 'the serving line')
    const port = /\]:(\d+),/.exec(server.out[0]!)![1]!
    const client = io()
    expect(
      await mainAsync(['ntp', 'query', `[::1]:${port}`, '--json', '--samples', '1'], client.io),
    ).toBe(0)
    expectWithinItsBound(JSON.parse(client.out[0]!), -40)
    stop.abort()
    expect(await serving).toBe(0)
  })

  it('no server: one line on stderr, exit 1', async () => {
    const port = await freePort()
    const client = io()
    const code = await mainAsync(
      ['ntp', 'query', `127.0.0.1:${port}`, '--timeout', '300'],
      client.io,
    )
    expect(code).toBe(1)
    expect(client.err).toHaveLength(1)
    expect(client.err[0]).toMatch(/^sd: no valid NTP reply from 127\.0\.0\.1 within 300 ms/)
    expect(client.out).toEqual([])
  })

  it('a port in use: one line, exit 1; the synchronous main refuses ntp', async () => {
    const busy = createSocket('udp4')
    await new Promise<void>((resolve) => busy.bind(0, '127.0.0.1', resolve))
    const server = io()
    const code = await mainAsync(['ntp', 'serve', '--port', String(busy.address().port)], server.io)
    busy.close()
    expect(code).toBe(1)
    expect(server.err[0]).toMatch(/^sd: .*EADDRINUSE/)
    const sync = io()
    expect(main(['ntp', 'query', 'x'], sync.io)).toBe(1)
    expect(sync.err[0]).toMatch(/mainAsync/)
  })

  it('the sd command serves until SIGTERM, then exits 0', async () => {
    const bin = fileURLToPath(new URL('../../bin/sd.js', import.meta.url))
    const child = spawn(
      process.execPath,
      [bin, 'ntp', 'serve', '--port', '0', '--offset', '-250'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    children.push(child)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    )
    await waitFor(() => /:(\d+),/.test(stdout) || child.exitCode !== null, 'sd ntp serve to start')
    const port = /:(\d+),/.exec(stdout)?.[1]
    expect(port, stderr).toBeDefined()
    const client = io()
    expect(await mainAsync(['ntp', 'query', `127.0.0.1:${port}`, '--json'], client.io)).toBe(0)
    expectWithinItsBound(JSON.parse(client.out[0]!), -250)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stderr).toMatch(/stopped; 4 requests answered/)
  })
})
