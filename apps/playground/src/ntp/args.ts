import { parseArgs } from 'node:util'
import { DEFAULT_SERVER_PORT, NTP_PORT } from '@sd/timesync/udp'
import { joinNegativeValues } from '../args.js'
import { UsageError } from '../usage.js'

/** `sd ntp serve`, checked. */
export interface ServeRequest {
  command: 'serve'
  host: string
  /** 0 lets the system pick a free port (printed once bound). */
  port: number
  offsetMs: number
  stratum: number
}

/** `sd ntp query`, checked. */
export interface QueryRequest {
  command: 'query'
  host: string
  port: number
  samples: number
  timeoutMs: number
  /** Replies claiming a larger offset are refused (offset-limit); undefined: the client's default. */
  maxOffsetMs: number | undefined
  json: boolean
}

/** `sd ntp --help`. */
export interface NtpHelpRequest {
  command: 'help'
}

/** What `sd ntp ...` asks for, checked. */
export type NtpCommand = ServeRequest | QueryRequest | NtpHelpRequest

const SERVE_OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  offset: { type: 'string' },
  stratum: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

const QUERY_OPTIONS = {
  samples: { type: 'string' },
  timeout: { type: 'string' },
  'max-offset': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

/** The arguments after `sd ntp`; throws UsageError (or a parseArgs error) for bad ones. */
export function parseNtp(args: readonly string[]): NtpCommand {
  const [sub, ...rest] = args
  switch (sub) {
    case 'serve':
      return parseServe(rest)
    case 'query':
      return parseQuery(rest)
    case 'help':
    case '--help':
    case '-h':
      return { command: 'help' }
    case undefined:
      throw new UsageError('ntp needs serve or query')
    default:
      throw new UsageError(`unknown ntp command ${JSON.stringify(sub)}: serve or query`)
  }
}

function parseServe(args: readonly string[]): ServeRequest | NtpHelpRequest {
  const { values, positionals } = parseArgs({
    args: joinNegativeValues(args, SERVE_OPTIONS),
    allowPositionals: true,
    strict: true,
    options: SERVE_OPTIONS,
  })
  if (values.help) return { command: 'help' }
  if (positionals.length > 0)
    throw new UsageError(`ntp serve takes options only, got ${positionals.join(' ')}`)
  const host = values.host ?? '127.0.0.1'
  if (host === '') throw new UsageError('--host takes an address, got an empty one')
  return {
    command: 'serve',
    host: host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host,
    port:
      values.port === undefined ? DEFAULT_SERVER_PORT : ranged('--port', values.port, 0, 65_535),
    offsetMs: values.offset === undefined ? 0 : milliseconds('--offset', values.offset),
    stratum: values.stratum === undefined ? 10 : ranged('--stratum', values.stratum, 1, 15),
  }
}

function parseQuery(args: readonly string[]): QueryRequest | NtpHelpRequest {
  const { values, positionals } = parseArgs({
    args: joinNegativeValues(args, QUERY_OPTIONS),
    allowPositionals: true,
    strict: true,
    options: QUERY_OPTIONS,
  })
  if (values.help) return { command: 'help' }
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length
        ? `ntp query takes one server, got ${positionals.join(' ')}`
        : 'ntp query needs a server: HOST, HOST:PORT or [IPv6]:PORT',
    )
  const { host, port } = hostPort(positionals[0]!)
  return {
    command: 'query',
    host,
    port,
    samples: values.samples === undefined ? 4 : ranged('--samples', values.samples, 1, 64),
    timeoutMs:
      values.timeout === undefined ? 5000 : ranged('--timeout', values.timeout, 1, 3_600_000),
    maxOffsetMs: maxOffset(values['max-offset']),
    json: values.json ?? false,
  }
}

/**
 * `HOST`, `HOST:PORT`, `[IPv6]`, `[IPv6]:PORT`, or a bare IPv6 address (two colons or more, so
 * no port). The port defaults to 123, where NTP servers listen.
 */
export function hostPort(text: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text)
  if (bracketed) return { host: bracketed[1]!, port: port(bracketed[2], text) }
  if (text.startsWith('[')) throw new UsageError(`unclosed [ in ${JSON.stringify(text)}`)
  const colons = text.split(':').length - 1
  if (colons >= 2) return { host: text, port: NTP_PORT }
  const [host, portText] = text.split(':')
  if (!host) throw new UsageError(`no host in ${JSON.stringify(text)}`)
  return { host, port: port(portText, text) }
}

function port(text: string | undefined, whole: string): number {
  if (text === undefined) return NTP_PORT
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65_535)
    throw new UsageError(`the port in ${JSON.stringify(whole)} must be in 1..65535`)
  return Number(text)
}

function ranged(flag: string, text: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`${flag} takes an integer in ${min}..${max}, got ${JSON.stringify(text)}`)
  return Number(text)
}

/** `--max-offset`: milliseconds above 0, or `none` for no limit. */
function maxOffset(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  if (text === 'none') return Number.POSITIVE_INFINITY
  const value = milliseconds('--max-offset', text)
  if (!(value > 0))
    throw new UsageError(`--max-offset takes milliseconds above 0 or none, got ${text}`)
  return value
}

function milliseconds(flag: string, text: string): number {
  const value = Number(text)
  if (!/^-?\d+(\.\d+)?$/.test(text) || Math.abs(value) > 1e12)
    throw new UsageError(
      `${flag} takes milliseconds such as 250 or -12.5, got ${JSON.stringify(text)}`,
    )
  return value
}
