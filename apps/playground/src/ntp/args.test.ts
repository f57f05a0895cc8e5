import { describe, expect, it } from 'vitest'
import { mainAsync } from '../cli.js'
import { hostPort, parseNtp } from './args.js'

async function sd(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await mainAsync(argv, { out: (t) => out.push(t), err: (t) => err.push(t) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('sd ntp arguments', () => {
  it.each([
    [['ntp']],
    [['ntp', 'fly']],
    [['ntp', 'serve', 'extra']],
    [['ntp', 'serve', '--port', '70000']],
    [['ntp', 'serve', '--port', 'http']],
    [['ntp', 'serve', '--stratum', '0']],
    [['ntp', 'serve', '--stratum', '16']],
    [['ntp', 'serve', '--offset', 'soon']],
    [['ntp', 'serve', '--host', '']],
    [['ntp', 'serve', '--bogus']],
    [['ntp', 'query']],
    [['ntp', 'query', 'a', 'b']],
    [['ntp', 'query', 'host:99999']],
    [['ntp', 'query', 'host:']],
    [['ntp', 'query', ':123']],
    [['ntp', 'query', '[::1']],
    [['ntp', 'query', '[::1]:x']],
    [['ntp', 'query', 'host', '--samples', '0']],
    [['ntp', 'query', 'host', '--samples', '65']],
    [['ntp', 'query', 'host', '--timeout', '0']],
    [['ntp', 'query', 'host', '--offset', '3']],
  ])('exits 2 with a usage message: %j', async (argv) => {
    const { code, err, out } = await sd(...argv)
    expect(code).toBe(2)
    expect(err).toMatch(/^sd: .+\nsee sd .*--help.* for the usage$/)
    expect(out).toBe('')
  })

  it('serve: defaults, negative and fractional offsets, IPv6 hosts', () => {
    expect(parseNtp(['serve'])).toEqual({
      command: 'serve',
      host: '127.0.0.1',
      port: 11_123,
      offsetMs: 0,
      stratum: 10,
    })
    expect(parseNtp(['serve', '--offset', '-250', '--port', '0'])).toMatchObject({
      offsetMs: -250,
      port: 0,
    })
    expect(parseNtp(['serve', '--offset=12.5', '--host', '[::1]'])).toMatchObject({
      offsetMs: 12.5,
      host: '::1',
    })
  })

  it('query: HOST[:PORT], [IPv6]:PORT, bare IPv6; the port defaults to 123', () => {
    expect(hostPort('pool.ntp.org')).toEqual({ host: 'pool.ntp.org', port: 123 })
    expect(hostPort('127.0.0.1:11123')).toEqual({ host: '127.0.0.1', port: 11_123 })
    expect(hostPort('[::1]:11123')).toEqual({ host: '::1', port: 11_123 })
    expect(hostPort('[::1]')).toEqual({ host: '::1', port: 123 })
    expect(hostPort('::1')).toEqual({ host: '::1', port: 123 })
    expect(hostPort('fe80::1:2')).toEqual({ host: 'fe80::1:2', port: 123 })
    expect(parseNtp(['query', 'localhost:5', '--json', '--samples', '8'])).toEqual({
      command: 'query',
      host: 'localhost',
      port: 5,
      samples: 8,
      timeoutMs: 5000,
      maxOffsetMs: undefined,
      json: true,
    })
  })

  it('--max-offset takes milliseconds above 0, or none for no limit', () => {
    const q = (...extra: string[]) => parseNtp(['query', 'h', ...extra]) as { maxOffsetMs?: number }
    expect(q('--max-offset', '1000').maxOffsetMs).toBe(1000)
    expect(q('--max-offset', 'none').maxOffsetMs).toBe(Number.POSITIVE_INFINITY)
    for (const bad of ['0', '-5', 'x'])
      expect(() => q('--max-offset', bad), bad).toThrow(/--max-offset/)
  })

  it('--help prints the usage with the ntp options; main itself points to mainAsync', async () => {
    for (const argv of [
      ['ntp', '--help'],
      ['ntp', 'serve', '--help'],
      ['ntp', 'query', '-h'],
    ]) {
      const { code, out } = await sd(...argv)
      expect(code).toBe(0)
      expect(out).toMatch(/options of ntp serve:/)
    }
    const other = await sd('list')
    expect(other.code).toBe(0)
  })
})
