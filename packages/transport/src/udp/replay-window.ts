/**
 * How far beyond the newest packet number seen a peer's next one may be. A real peer skips numbers
 * only for datagrams lost on the way; a number further ahead is refused, not taken as the new front
 * (a key holder's datagram numbered 2^48 - 1 would otherwise make every real one look replayed).
 * Half the window, so one accepted datagram at the limit leaves every real number in the window.
 * A real gap this large (a long one-way outage) is crossed by a handshake: see `resync`.
 */
export const MAX_PN_AHEAD = 512

/** What the window says of a packet number: new (and now recorded), or why it is refused. */
export type ReplayVerdict = 'fresh' | 'seen' | 'too-old' | 'too-far'

/**
 * Sliding window over packet numbers (as in IPsec and DTLS): accepts each number once, refuses
 * numbers older than the window, and numbers too far ahead of it. Fixed memory whatever the sender does.
 */
export class ReplayWindow {
  private highest = -1
  private readonly seen: Uint8Array

  constructor(readonly size = 1024) {
    this.seen = new Uint8Array(size)
  }

  /** Records `pn` the first time it is offered inside the window; otherwise says why not. */
  offer(pn: number): ReplayVerdict {
    const size = this.size
    if (pn > this.highest) {
      // Before anything arrived any number may start the window (the handshake already vouched for the peer).
      if (this.highest >= 0 && pn - this.highest > MAX_PN_AHEAD) return 'too-far'
      const advance = pn - this.highest
      if (advance >= size) this.seen.fill(0)
      else for (let n = this.highest + 1; n < pn; n++) this.seen[n % size] = 0
      this.highest = pn
      this.seen[pn % size] = 1
      return 'fresh'
    }
    if (this.highest - pn >= size) return 'too-old'
    const slot = pn % size
    if (this.seen[slot] === 1) return 'seen'
    this.seen[slot] = 1
    return 'fresh'
  }

  /** True the first time `pn` is offered inside the window. */
  accept(pn: number): boolean {
    return this.offer(pn) === 'fresh'
  }

  /**
   * `pn` is the number of a handshake answer that echoed our fresh challenge: the peer sent it
   * after everything it had sent before. A front below it moves up to it (whatever the gap:
   * datagrams lost in an outage); a front far above it was not the peer's (a forged number had
   * moved it) and comes down to it. Either way everything up to `pn` counts as seen.
   */
  resync(pn: number): void {
    if (pn > this.highest || this.highest - pn > MAX_PN_AHEAD) this.resetAt(pn)
    else this.offer(pn)
  }

  reset(): void {
    this.highest = -1
    this.seen.fill(0)
  }

  /** Starts over with every number up to `pn` counted as seen (a link confirmed at packet `pn`). */
  resetAt(pn: number): void {
    this.highest = pn
    this.seen.fill(1)
  }
}
