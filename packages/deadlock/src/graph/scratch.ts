/**
 * Index-keyed work arrays reused by the local searches. A node counts as visited when its stamp
 * equals the current epoch, so starting a search costs O(1) instead of clearing O(V) marks: a
 * search then costs what it visits, which is what lets a lock manager check every new wait.
 */
export class Scratch {
  stamp = new Int32Array(0)
  parent = new Int32Array(0)
  queue = new Int32Array(0)
  /** Position on the current DFS path, or -1 when off the path. */
  pathPos = new Int32Array(0)
  private epoch = 0

  /** Starts a search over nodes 0 to capacity - 1; returns its epoch. */
  begin(capacity: number): number {
    if (this.stamp.length < capacity) this.grow(capacity)
    if (this.epoch === 0x7fffffff) {
      this.stamp.fill(0)
      this.epoch = 0
    }
    return ++this.epoch
  }

  private grow(capacity: number): void {
    const size = Math.max(capacity, this.stamp.length * 2, 16)
    // Fresh zeros are below every epoch begin() hands out, so nothing needs copying.
    this.stamp = new Int32Array(size)
    this.parent = new Int32Array(size)
    this.queue = new Int32Array(size)
    this.pathPos = new Int32Array(size).fill(-1)
  }
}
