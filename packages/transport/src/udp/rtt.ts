/** Retransmission timing of the reliable link. */
export interface RetransmitOptions {
  /** Probe timeout before the first round-trip sample. Default 100 ms. */
  initialRtoMs?: number
  /** Floor of the probe timeout. Default 10 ms. */
  minRtoMs?: number
  /** Ceiling of the probe timeout, backoff included. Default 2000 ms. */
  maxRtoMs?: number
  /**
   * Consecutive timeouts without any acknowledgement (the handshake's too) before the peer is
   * declared unreachable. Default 10 (about 13 s with the other defaults).
   */
  maxAttempts?: number
  /** Each timeout is lengthened by a random factor in [1, 1 + jitter], so peers do not fire in step. Default 0.2. */
  jitter?: number
}

export type ResolvedRetransmit = Required<RetransmitOptions>

/** Timer granularity assumed for loss detection, ms. */
const GRANULARITY_MS = 1

/**
 * Round-trip estimate (RFC 6298's smoothing). Samples come from packet numbers, which are never
 * reused, so a sample never includes a retransmission timeout (the ambiguity Karn's rule avoids).
 */
export class RttEstimator {
  srtt = 0
  rttvar = 0
  latest = 0
  private hasSample = false

  constructor(private readonly options: ResolvedRetransmit) {}

  sample(ms: number): void {
    const rtt = Math.max(0, ms)
    this.latest = rtt
    if (!this.hasSample) {
      this.srtt = rtt
      this.rttvar = rtt / 2
      this.hasSample = true
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - rtt)
      this.srtt = 0.875 * this.srtt + 0.125 * rtt
    }
  }

  /**
   * The probe timeout before backoff: srtt plus a margin of 4 rttvar, at least a quarter of srtt
   * (a steady round trip drives rttvar to 0, and a timeout at srtt itself would fire on every
   * round), within [minRtoMs, maxRtoMs].
   */
  base(): number {
    const { initialRtoMs, minRtoMs, maxRtoMs } = this.options
    if (!this.hasSample) return initialRtoMs
    const margin = Math.max(4 * this.rttvar, this.srtt / 4, GRANULARITY_MS)
    return Math.min(maxRtoMs, Math.max(minRtoMs, this.srtt + margin))
  }

  /**
   * Timeout after `backoff` expirations without progress; `unit` in [0, 1) draws the jitter.
   * `ackDelayMs`: how long the peer may hold its acknowledgement (RFC 9002's max_ack_delay in the
   * probe timeout); 0 for what is answered at once (handshakes).
   */
  timeout(backoff: number, unit: number, ackDelayMs = 0): number {
    const { maxRtoMs, jitter } = this.options
    const backed = Math.min(maxRtoMs, (this.base() + ackDelayMs) * 2 ** Math.min(backoff, 30))
    return backed * (1 + jitter * unit)
  }

  /** How long a packet below the largest acknowledged may stay unacknowledged before it counts as lost. */
  lossDelay(): number {
    return Math.max(GRANULARITY_MS, (9 / 8) * Math.max(this.srtt, this.latest))
  }

  get hasSamples(): boolean {
    return this.hasSample
  }
}
