/** Retransmission timing of the reliable link. */
export interface RetransmitOptions {
  /** Timeout before the first RTT sample. Default 100 ms. */
  initialRtoMs?: number
  /** Floor of the timeout. Default 10 ms. */
  minRtoMs?: number
  /** Ceiling of the timeout, backoff included. Default 2000 ms. */
  maxRtoMs?: number
  /** Transmissions of one datagram (first send included) before the peer is declared unreachable. Default 10. */
  maxAttempts?: number
  /** Each timeout is multiplied by a random factor in [1 - jitter, 1 + jitter]. Default 0.2. */
  jitter?: number
}

export type ResolvedRetransmit = Required<RetransmitOptions>

/**
 * RTT estimate and retransmission timeout as in RFC 6298 (Jacobson/Karels):
 * srtt and rttvar from samples taken only on datagrams sent once (Karn), doubled per attempt.
 */
export class RttEstimator {
  private srtt = 0
  private rttvar = 0
  private hasSample = false
  private rto: number

  constructor(private readonly options: ResolvedRetransmit) {
    this.rto = options.initialRtoMs
  }

  sample(ms: number): void {
    if (!this.hasSample) {
      this.srtt = ms
      this.rttvar = ms / 2
      this.hasSample = true
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - ms)
      this.srtt = 0.875 * this.srtt + 0.125 * ms
    }
    this.rto = Math.min(
      this.options.maxRtoMs,
      Math.max(this.options.minRtoMs, this.srtt + 4 * this.rttvar),
    )
  }

  /** Timeout for the given attempt (1 = first transmission): exponential backoff with jitter. */
  timeout(attempt: number): number {
    const { maxRtoMs, jitter } = this.options
    const backed = Math.min(maxRtoMs, this.rto * 2 ** Math.min(attempt - 1, 30))
    return backed * (1 + jitter * (2 * Math.random() - 1))
  }

  get current(): number {
    return this.rto
  }
}
