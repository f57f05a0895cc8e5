import { compareLamport, type LamportTimestamp } from '@sd/clocks'

/** A request queue kept in (T, pid) order, at most one entry per process. */
export class RequestQueue {
  private readonly entries: LamportTimestamp[] = []

  /** The entries as plain data, in (T, pid) order. */
  snapshot(): Array<{ time: number; pid: LamportTimestamp['pid'] }> {
    return this.entries.map((e) => ({ time: e.time, pid: e.pid }))
  }

  get head(): LamportTimestamp | undefined {
    return this.entries[0]
  }

  get size(): number {
    return this.entries.length
  }

  /** Whether the process already has a request queued. */
  hasFrom(pid: LamportTimestamp['pid']): boolean {
    return this.entries.some((e) => e.pid === pid)
  }

  add(entry: LamportTimestamp): void {
    let i = this.entries.length
    while (i > 0 && compareLamport(this.entries[i - 1]!, entry) > 0) i--
    this.entries.splice(i, 0, entry)
  }

  /** Removes exactly (time, pid); false when it was not queued. */
  remove(entry: LamportTimestamp): boolean {
    const i = this.entries.findIndex((e) => e.pid === entry.pid && e.time === entry.time)
    if (i < 0) return false
    this.entries.splice(i, 1)
    return true
  }
}
