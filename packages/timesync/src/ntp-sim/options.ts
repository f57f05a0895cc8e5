import { InvalidArgumentError, type NodeId } from '@sd/transport'
import type { DisciplinePolicy } from '../clock/disciplined.js'
import type { NtpServerOptions } from '../ntp/server.js'

export interface NtpSimOptions {
  /** The nodes that serve time; every other node is a client of all of them. */
  servers: readonly NodeId[]
  /** How the servers describe themselves (stratum, reference id...). */
  server?: NtpServerOptions
  /** A client polls every server every `pollMs` (ms). Default 1000. */
  pollMs?: number
  /** How long a poll waits for answers before selecting (ms). Default 200. */
  replyTimeoutMs?: number
  /** Unix ms that the simulator's time 0 stands for (NTP dates start in 1900). Default 2026-01-01. */
  epochMs?: number
  discipline?: DisciplinePolicy
}

/** The options with their defaults filled in, every value checked. */
export interface NtpSimSettings {
  servers: readonly NodeId[]
  server: NtpServerOptions | undefined
  pollMs: number
  replyTimeoutMs: number
  epochMs: number
}

export const DEFAULT_POLL_MS = 1000
export const DEFAULT_REPLY_TIMEOUT_MS = 200
export const DEFAULT_EPOCH = Date.UTC(2026, 0, 1)

export function resolveOptions(options: NtpSimOptions): NtpSimSettings {
  const {
    servers,
    pollMs = DEFAULT_POLL_MS,
    replyTimeoutMs = DEFAULT_REPLY_TIMEOUT_MS,
    epochMs = DEFAULT_EPOCH,
  } = options
  if (servers.length === 0) throw new InvalidArgumentError('ntpSim needs at least one server')
  if (!(pollMs > 0)) throw new InvalidArgumentError(`pollMs must be > 0, got ${pollMs}`)
  if (!(replyTimeoutMs > 0 && replyTimeoutMs <= pollMs))
    throw new InvalidArgumentError(`replyTimeoutMs must be in (0, pollMs], got ${replyTimeoutMs}`)
  return { servers, server: options.server, pollMs, replyTimeoutMs, epochMs }
}
