import type { NodeId } from '@sd/transport'
import { compatible, type Hold, isExclusive, type Want } from './kinds.js'

/**
 * Which waiting request goes next when readers and writers wait together (option `readers`):
 * - `'fifo'` (default): strictly in queue order; a writer at the head holds back the readers
 *   behind it, so nobody starves;
 * - `'writers-first'`: the first waiting exclusive request goes before every waiting shared or
 *   permit one (readers behind a writer wait, and new readers too: readers can starve);
 * - `'readers-first'`: the head if it fits; else a waiting shared request joins the shared holders
 *   even past a waiting writer (a stream of readers starves writers).
 */
export type ReaderPolicy = 'fifo' | 'writers-first' | 'readers-first'

/**
 * The index in `queue` of the request to grant now beside `blockers` (holders, and entries in
 * their lock-delay), or -1. A `steal` goes first whatever holds: it takes the resource (once its
 * victims are gone: steal.ts). A request
 * of a node in `holding` waits: a node holds a resource once (it is a stale copy, or came before
 * the RELEASE it follows).
 */
export function nextToGrant<W extends Want & { node: NodeId }>(
  queue: readonly W[],
  blockers: readonly Hold[],
  holding: ReadonlySet<NodeId>,
  policy: ReaderPolicy,
): number {
  if (queue.length === 0) return -1
  const steal = queue.findIndex((q) => q.steal === true)
  if (steal >= 0) return steal
  const fits = (q: W) => !holding.has(q.node) && compatible(q, blockers)
  const writer = policy === 'writers-first' ? queue.findIndex(isExclusive) : -1
  const first = Math.max(writer, 0)
  if (fits(queue[first]!)) return first
  if (policy !== 'readers-first') return -1
  return queue.findIndex((q) => q.mode === 'shared' && q.permits === undefined && fits(q))
}

/**
 * The waiting requests in the order `nextToGrant` considers them, for a view of the queue (a
 * query): steals first, then (`'writers-first'`) exclusive requests before the others, else the
 * order received. Under `'readers-first'` a shared request may still be granted past a writer.
 */
export function servingOrder<W extends Want>(queue: readonly W[], policy: ReaderPolicy): W[] {
  const steals = queue.filter((q) => q.steal === true)
  const rest = queue.filter((q) => q.steal !== true)
  if (policy !== 'writers-first') return [...steals, ...rest]
  return [...steals, ...rest.filter(isExclusive), ...rest.filter((q) => !isExclusive(q))]
}
