import { Session } from 'node:inspector/promises'

/**
 * Bytes `batch` allocates per operation (it performs and returns a number of operations), from
 * V8's sampling heap profiler with the objects the collector already freed counted too: what the
 * collector will have to sweep, a figure that does not move with the machine's load. Sampled
 * every 256 bytes on average, so a run of megabytes reads within about 1%.
 */
export async function bytesPerOperation(batch: () => number, runs = 3): Promise<number> {
  batch() // warm-up: code compiled and caches made, outside the count
  const session = new Session()
  session.connect()
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    })
    let operations = 0
    for (let i = 0; i < runs; i++) operations += batch()
    const { profile } = await session.post('HeapProfiler.stopSampling')
    // Each node's `selfSize` is V8's estimate of all it allocated, the samples scaled up.
    let bytes = 0
    const pending = [profile.head]
    for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
      bytes += node.selfSize
      pending.push(...node.children)
    }
    return bytes / operations
  } finally {
    session.disconnect()
  }
}
