import { InvalidArgumentError } from '@sd/transport'

export interface TokenRingOptions {
  /** How long a holder that does not want the section keeps the token before passing it (default 2 ms). */
  holdMs?: number
  /** How long a sender waits for the ACK of a pass before sending it again (default 20 ms: a few round trips). */
  ackTimeoutMs?: number
  /** Sends of a pass after the first before the successor is declared crashed and skipped (default 3). */
  retries?: number
  /**
   * How long a node goes without seeing the token before it starts a regeneration. Default:
   * 4 * n * (holdMs + ackTimeoutMs), a few worst-case circulations of an idle ring of n members.
   * Make it longer than a circulation with the sections it carries, or a regeneration starts for
   * nothing: safe (the holder stops it), but it costs a round of messages.
   */
  lostTokenTimeoutMs?: number
}

export interface TokenRingSettings {
  holdMs: number
  ackTimeoutMs: number
  retries: number
  lostTokenTimeoutMs: (n: number) => number
}

export const DEFAULT_HOLD_MS = 2
export const DEFAULT_ACK_TIMEOUT_MS = 20
export const DEFAULT_RETRIES = 3
/** By default a node waits this many worst-case circulations of an idle ring before regenerating. */
export const DEFAULT_LOST_TOKEN_CIRCULATIONS = 4

function positive(name: string, value: unknown, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < 0 ||
    (!allowZero && value === 0)
  ) {
    throw new InvalidArgumentError(
      `tokenRing: ${name} must be a finite number ${allowZero ? '>= 0' : '> 0'}, got ${String(value)}`,
    )
  }
  return value
}

/** Fills in the defaults and checks every value (`InvalidArgumentError` on a bad one). */
export function resolveOptions(options: TokenRingOptions = {}): TokenRingSettings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('tokenRing: options must be an object')
  }
  const holdMs = positive('holdMs', options.holdMs, DEFAULT_HOLD_MS, true)
  const ackTimeoutMs = positive('ackTimeoutMs', options.ackTimeoutMs, DEFAULT_ACK_TIMEOUT_MS)
  const retries = positive('retries', options.retries, DEFAULT_RETRIES, true)
  if (!Number.isSafeInteger(retries)) {
    throw new InvalidArgumentError(`tokenRing: retries must be a whole number, got ${retries}`)
  }
  const lost = positive('lostTokenTimeoutMs', options.lostTokenTimeoutMs, 0, true)
  if (options.lostTokenTimeoutMs !== undefined && lost <= ackTimeoutMs * (retries + 1)) {
    throw new InvalidArgumentError(
      `tokenRing: lostTokenTimeoutMs (${lost}) must exceed ackTimeoutMs * (retries + 1) (${ackTimeoutMs * (retries + 1)}), the longest a pass may take`,
    )
  }
  return {
    holdMs,
    ackTimeoutMs,
    retries,
    lostTokenTimeoutMs:
      options.lostTokenTimeoutMs !== undefined
        ? () => lost
        : (n) => DEFAULT_LOST_TOKEN_CIRCULATIONS * Math.max(n, 1) * (holdMs + ackTimeoutMs),
  }
}
