/** `sd ntp serve` and `sd ntp query`: our NTP server and client on real UDP sockets. */
import { createNtpServer, type NtpQueryResult, queryNtp } from '@sd/timesync/udp'
import type { Io } from '../cli.js'
import { USAGE, UsageError, usageErrorText } from '../usage.js'
import { type NtpCommand, parseNtp, type QueryRequest, type ServeRequest } from './args.js'

/**
 * Runs `sd ntp <args>`; resolves to the exit code (0 ok, 1 failure, 2 bad arguments). `signal`
 * stops `serve` (exit 0) and gives `query` up (exit 1); without one, serve runs forever.
 */
export async function runNtp(
  args: readonly string[],
  io: Io,
  signal?: AbortSignal,
): Promise<number> {
  let request: NtpCommand
  try {
    request = parseNtp(args)
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.err(usageErrorText(error.message, 'ntp'))
      return 2
    }
    throw error
  }
  try {
    switch (request.command) {
      case 'help':
        io.out(USAGE)
        return 0
      case 'serve':
        return await serve(request, io, signal)
      case 'query':
        return await query(request, io, signal)
    }
  } catch (error) {
    io.err(`sd: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}

async function serve(request: ServeRequest, io: Io, signal?: AbortSignal): Promise<number> {
  const server = await createNtpServer({
    host: request.host,
    port: request.port,
    offsetMs: request.offsetMs,
    stratum: request.stratum,
  })
  io.out(
    `sd ntp: serving NTP on ${endpoint(server.address, server.port)}, clock offset ${signed(request.offsetMs)} ms, stratum ${request.stratum} (Ctrl-C stops)`,
  )
  await new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    signal?.addEventListener('abort', () => resolve(), { once: true })
  })
  await server.close()
  io.err(
    `sd ntp: stopped; ${server.answered} requests answered, ${server.rejected} refused, ${server.unsent} unanswerable (the reply could not be sent)`,
  )
  return 0
}

async function query(request: QueryRequest, io: Io, signal?: AbortSignal): Promise<number> {
  const result = await queryNtp(request.host, {
    port: request.port,
    samples: request.samples,
    timeoutMs: request.timeoutMs,
    ...(request.maxOffsetMs === undefined ? {} : { maxOffsetMs: request.maxOffsetMs }),
    ...(signal ? { signal } : {}),
  })
  if (request.json) io.out(JSON.stringify(summary(result)))
  else
    for (const line of [
      `server   ${endpoint(result.address, result.port)}${result.host === result.address ? '' : ` (${result.host})`}, stratum ${result.stratum}, reference ${result.reference}`,
      `offset   ${signed(result.offsetMs, 3)} ms (the server's clock minus this one)`,
      `delay    ${result.delayMs.toFixed(3)} ms`,
      `error    ±${result.errorBoundMs.toFixed(3)} ms (root distance: the server's own distance to its reference included; ±${result.serverErrorBoundMs.toFixed(3)} ms to the server's clock)`,
      `samples  ${result.samples.length} of ${result.attempts} requests, jitter ${result.jitterMs.toFixed(3)} ms; the least-delay one is shown`,
    ])
      io.out(line)
  return 0
}

/** The JSON of `--json`: the best sample's figures (ms), the server, and the counts. */
function summary(r: NtpQueryResult) {
  return {
    host: r.host,
    address: r.address,
    port: r.port,
    offsetMs: r.offsetMs,
    delayMs: r.delayMs,
    errorBoundMs: r.errorBoundMs,
    rootDistanceMs: r.rootDistanceMs,
    serverErrorBoundMs: r.serverErrorBoundMs,
    jitterMs: r.jitterMs,
    stratum: r.stratum,
    reference: r.reference,
    samples: r.samples.length,
    attempts: r.attempts,
  }
}

function endpoint(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`
}

function signed(ms: number, digits?: number): string {
  const text = digits === undefined ? String(ms) : ms.toFixed(digits)
  return ms >= 0 ? `+${text}` : text
}

/** node:util's parseArgs throws TypeErrors with an `ERR_PARSE_ARGS_*` code. */
function isParseArgsError(error: unknown): error is Error {
  return (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS')
  )
}
