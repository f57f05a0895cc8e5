/// <reference types="node" />
/**
 * The NTP client over several servers: each is queried (`queryNtp`) at once, and Marzullo's
 * selection decides which to trust. A server that does not answer, or answers badly, is reported
 * with its error and left out; a falseticker is reported and left out of the combined offset.
 */
import { selectSources } from './select.js'
import { type NtpQueryResult, type QueryNtpOptions, queryNtp } from './udp.js'

/** A server to ask: a host (name, IPv4 or IPv6) and its port (default 123). */
export interface NtpSource {
  host: string
  port?: number
}

/** One server's outcome. */
export type NtpSourceOutcome =
  | { source: NtpSource; ok: true; result: NtpQueryResult }
  | { source: NtpSource; ok: false; error: Error }

export interface NtpSourcesResult {
  outcomes: NtpSourceOutcome[]
  /** True when a majority of the answering servers agree; then the fields below are set. */
  majority: boolean
  /** The servers whose intervals share the intersection, and those that miss it. */
  truechimers: NtpSource[]
  falsetickers: NtpSource[]
  /** The truechimers' offsets weighted by 1 / root distance, ms. */
  offsetMs?: number
  /** The true offset lies within offsetMs ± errorBoundMs if the truechimers are right. */
  errorBoundMs?: number
}

/** Queries every source in parallel and selects (see the module comment). */
export async function queryNtpSources(
  sources: readonly NtpSource[],
  options: Omit<QueryNtpOptions, 'port'> = {},
): Promise<NtpSourcesResult> {
  const outcomes = await Promise.all(
    sources.map(async (source): Promise<NtpSourceOutcome> => {
      try {
        const result = await queryNtp(source.host, { ...options, port: source.port ?? 123 })
        return { source, ok: true, result }
      } catch (error) {
        // queryNtp rejects with an Error, unless the caller's clock threw something else.
        const failure = error instanceof Error ? error : new Error(String(error), { cause: error })
        return { source, ok: false, error: failure }
      }
    }),
  )
  const answered = outcomes.flatMap((o) =>
    o.ok
      ? [{ source: o.source, offsetMs: o.result.offsetMs, rootDistanceMs: o.result.rootDistanceMs }]
      : [],
  )
  const selection = selectSources(answered)
  if (!selection.majority) return { outcomes, majority: false, truechimers: [], falsetickers: [] }
  const { lowMs, highMs } = selection.intersection
  const offsetMs = selection.offsetMs
  return {
    outcomes,
    majority: true,
    truechimers: selection.truechimers.map((s) => s.source),
    falsetickers: selection.falsetickers.map((s) => s.source),
    offsetMs,
    errorBoundMs: Math.max(offsetMs - lowMs, highMs - offsetMs),
  }
}
