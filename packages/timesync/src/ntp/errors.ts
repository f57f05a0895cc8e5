import { InvalidArgumentError, SdError } from '@sd/transport'

/** Options outside their domain reuse the transport's class, so one code means one thing. */
export { InvalidArgumentError }

/**
 * Why a packet was refused:
 * - `short`: fewer than 48 bytes;
 * - `version`: a version other than 3 or 4;
 * - `mode`: a reply that is not server mode (4), or a request that is not client mode (3);
 * - `zero-transmit`: a transmit timestamp of zero;
 * - `stratum`: stratum 0 without a kiss code, or 16 and above (unsynchronized, reserved);
 * - `kiss-o-death`: stratum 0 with a four-letter code (RATE, DENY, RSTR...): see `kissCode`;
 * - `origin-mismatch`: the reply's origin is not our transmit timestamp, bit for bit (a stale,
 *   duplicate or forged reply);
 * - `unsynchronized`: a reply with leap indicator 3 (the server's clock is not synchronized);
 * - `zero-receive`: a reply with a zero receive timestamp (T2 unknown: no offset can be had);
 * - `root-distance`: root delay / 2 + root dispersion of 16 s or more (RFC 5905's MAXDISP: the
 *   server admits it does not know the time);
 * - `reference-after-transmit`: the server says its clock was set after it sent the reply;
 * - `transmit-before-receive`: the server says it replied before it received the request;
 * - `negative-delay`: the server says it held the request longer than our whole round trip took
 *   (its timestamps and ours cannot all be true: T2 or T3 is far off);
 * - `offset-limit`: an offset beyond the client's `maxOffsetMs` (default one year: a reply
 *   decades off is refused, not believed).
 */
export type NtpRejectReason =
  | 'short'
  | 'version'
  | 'mode'
  | 'zero-transmit'
  | 'stratum'
  | 'kiss-o-death'
  | 'origin-mismatch'
  | 'unsynchronized'
  | 'zero-receive'
  | 'root-distance'
  | 'reference-after-transmit'
  | 'transmit-before-receive'
  | 'negative-delay'
  | 'offset-limit'

/** Every reason, for exhaustive checks. */
export const NTP_REJECT_REASONS: readonly NtpRejectReason[] = Object.freeze([
  'short',
  'version',
  'mode',
  'zero-transmit',
  'stratum',
  'kiss-o-death',
  'origin-mismatch',
  'unsynchronized',
  'zero-receive',
  'root-distance',
  'reference-after-transmit',
  'transmit-before-receive',
  'negative-delay',
  'offset-limit',
])

/** A packet that is not a valid NTP request or reply; `reason` says which check failed. */
export class NtpRejectedError extends SdError {
  readonly reason: NtpRejectReason
  /** The four-letter code of a kiss-o'-death (`reason` is `kiss-o-death`), else undefined. */
  readonly kissCode: string | undefined
  constructor(reason: NtpRejectReason, detail: string, kissCode?: string) {
    super('ERR_NTP_REJECTED', `NTP packet rejected (${reason}): ${detail}`)
    this.reason = reason
    this.kissCode = kissCode
  }
}

/** No valid reply came within the time limit (every request or reply was lost or refused). */
export class NtpTimeoutError extends SdError {
  readonly host: string
  readonly timeoutMs: number
  /** Requests sent before giving up. */
  readonly attempts: number
  /** The last reply that was refused, if any: often the real cause (a kiss, a stale origin). */
  readonly lastRejection: NtpRejectedError | undefined
  /** Whether the host answered with ICMP "port unreachable": nothing listens on that port. */
  readonly portUnreachable: boolean
  constructor(
    host: string,
    timeoutMs: number,
    attempts: number,
    seen: { lastRejection?: NtpRejectedError | undefined; portUnreachable?: boolean } = {},
  ) {
    const { lastRejection, portUnreachable = false } = seen
    const why = lastRejection
      ? `last reply refused: ${lastRejection.message}`
      : portUnreachable
        ? 'the host says nothing listens on that port (ICMP port unreachable)'
        : 'is an NTP server listening there, and is UDP let through?'
    super(
      'ERR_NTP_TIMEOUT',
      `no valid NTP reply from ${host} within ${timeoutMs} ms (${attempts} request${attempts === 1 ? '' : 's'} sent): ${why}`,
      { cause: lastRejection },
    )
    this.host = host
    this.timeoutMs = timeoutMs
    this.attempts = attempts
    this.lastRejection = lastRejection
    this.portUnreachable = portUnreachable
  }
}

/** The caller gave the query up (its AbortSignal fired). */
export class NtpAbortedError extends SdError {
  constructor(reason?: unknown) {
    super('ERR_NTP_ABORTED', 'the NTP query was aborted', { cause: reason })
  }
}

/** The socket failed: the host name did not resolve, the address cannot be bound or reached. */
export class NtpNetworkError extends SdError {
  readonly host: string
  constructor(host: string, operation: string, cause: unknown) {
    super(
      'ERR_NTP_NETWORK',
      `NTP ${operation} ${host} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    )
    this.host = host
  }
}
