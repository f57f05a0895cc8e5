/**
 * The lock-family benchmarks' correctness check, so that a fast broken lock is not reported as
 * fast: every client records the [enter, leave] of each critical section on the machine's
 * monotonic clock (locks-loop.ts), and a sweep over all of them counts the instants where a writer
 * was beside anyone, or more permits were out than the semaphore has.
 *
 * Sound, not complete: a recorded section lies inside the real holding (enter is read after the
 * acquire resolved, leave before the release is sent), so a reported overlap really happened; an
 * overlap shorter than the gaps around the recorded sections can go unseen.
 */
import type { ClientRole } from './locks-protocol.js'

export interface ClientSpans {
  id: string
  asks: ClientRole
  /** [enter, leave] pairs, flattened, microseconds. */
  spans: number[]
}

export interface LockCheck {
  /** Instants where the lock's rule was broken (0 for a correct lock). */
  violations: number
  /** The first of them, described. */
  first?: string
  /** The most readers seen inside together: above 1 shows the shared mode is used. */
  maxReaders: number
  /** The most permits seen out together (semaphore), or the most writers (read-write lock). */
  maxPermits: number
  maxWriters: number
  /** Critical sections checked. */
  sections: number
}

interface Edge {
  at: number
  /** +1 entering, -1 leaving. */
  step: 1 | -1
  client: ClientSpans
}

/** `limit`: the semaphore's permits; the read-write rule when undefined. */
export function checkSections(clients: ClientSpans[], limit?: number): LockCheck {
  const edges: Edge[] = []
  for (const client of clients) {
    for (let i = 0; i + 1 < client.spans.length; i += 2) {
      edges.push({ at: client.spans[i]!, step: 1, client })
      edges.push({ at: client.spans[i + 1]!, step: -1, client })
    }
  }
  // Leaves before enters at the same instant: sections that only touch do not overlap.
  edges.sort((a, b) => a.at - b.at || a.step - b.step)
  const check: LockCheck = {
    violations: 0,
    maxReaders: 0,
    maxPermits: 0,
    maxWriters: 0,
    sections: edges.length / 2,
  }
  let readers = 0
  let writers = 0
  let permits = 0
  const inside = new Set<string>()
  for (const { at, step, client } of edges) {
    const { asks } = client
    if (asks.kind === 'reader') readers += step
    else if (asks.kind === 'writer') writers += step
    else permits += step * asks.take
    if (step === -1) {
      inside.delete(client.id)
      continue
    }
    inside.add(client.id)
    check.maxReaders = Math.max(check.maxReaders, readers)
    check.maxWriters = Math.max(check.maxWriters, writers)
    check.maxPermits = Math.max(check.maxPermits, permits)
    const broken =
      limit === undefined ? writers > 1 || (writers === 1 && readers > 0) : permits > limit
    if (broken) {
      check.violations++
      check.first ??=
        `at ${at} µs ${client.id} entered beside ${[...inside].filter((id) => id !== client.id).join(', ')}` +
        (limit === undefined
          ? ` (${writers} writers, ${readers} readers)`
          : ` (${permits} permits of ${limit})`)
    }
  }
  return check
}
