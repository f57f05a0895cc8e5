/**
 * Sliding window over packet numbers (as in IPsec and DTLS): accepts each number once,
 * and refuses numbers older than the window. Fixed memory whatever the sender does.
 */
export class ReplayWindow {
  private highest = -1
  private readonly seen: Uint8Array

  constructor(readonly size = 1024) {
    this.seen = new Uint8Array(size)
  }

  /** True the first time `pn` is offered inside the window; false for a repeat or a number too old. */
  accept(pn: number): boolean {
    const size = this.size
    if (pn > this.highest) {
      const advance = pn - this.highest
      if (advance >= size) this.seen.fill(0)
      else for (let n = this.highest + 1; n < pn; n++) this.seen[n % size] = 0
      this.highest = pn
      this.seen[pn % size] = 1
      return true
    }
    if (this.highest - pn >= size) return false
    const slot = pn % size
    if (this.seen[slot] === 1) return false
    this.seen[slot] = 1
    return true
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
