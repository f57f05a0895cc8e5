// `observe()`: the leader changes as an async iterator, as etcd's Observe.
import type { AbortSignalLike, LeaderView } from './election.js'

/** What `observe` needs of the election handle. */
export interface ViewSource {
  current(): LeaderView | undefined
  /** Every change of view; returns a detach function. */
  onChange(listener: (view: LeaderView | undefined) => void): () => void
  /** Called once when the handle closes; returns a detach function. */
  onClose(listener: () => void): () => void
  closed(): boolean
}

/**
 * Yields the current leader (if one is known), then every new leader in the order this node
 * learned them. Times without a leader are not yielded (the next leader is). Buffered: a slow
 * consumer misses nothing. Ends (done) when the handle closes, the signal aborts, or the consumer
 * breaks out of its loop.
 */
export function observeLeaders(
  source: ViewSource,
  signal?: AbortSignalLike,
): AsyncIterableIterator<LeaderView> {
  const queue: LeaderView[] = []
  let waiting: ((r: IteratorResult<LeaderView>) => void) | undefined
  let done = source.closed() || signal?.aborted === true
  const push = (view: LeaderView) => {
    if (done) return
    if (waiting) {
      const w = waiting
      waiting = undefined
      w({ value: view, done: false })
    } else queue.push(view)
  }
  const offChange = source.onChange((view) => {
    if (view !== undefined) push(view)
  })
  let detached = false
  const end = () => {
    done = true
    if (detached) return
    detached = true
    offChange()
    offClose()
    signal?.removeEventListener('abort', end)
    const w = waiting
    waiting = undefined
    w?.({ value: undefined, done: true })
  }
  const offClose = source.onClose(end)
  if (done) end()
  else {
    signal?.addEventListener('abort', end, { once: true })
    const now = source.current()
    if (now !== undefined) queue.push(now)
  }
  const iterator: AsyncIterableIterator<LeaderView> = {
    next() {
      const view = queue.shift()
      if (view !== undefined) return Promise.resolve({ value: view, done: false })
      if (done) return Promise.resolve({ value: undefined, done: true })
      return new Promise((resolve) => {
        waiting = resolve
      })
    },
    return() {
      queue.length = 0
      end()
      return Promise.resolve({ value: undefined, done: true })
    },
    [Symbol.asyncIterator]() {
      return iterator
    },
  }
  return iterator
}
