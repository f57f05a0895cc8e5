/**
 * The all-to-all benchmark's baseline: the same exchange written by hand with no simulator, what
 * the simulator's hot loop cannot beat. Every node sends to every other, `rounds` times; a node
 * starts its next round when all n - 1 messages of its round arrived. Each message is a plain
 * object in a binary min-heap on (due time, send order), its latency uniform in [1, 5) ms from a
 * seeded linear congruential generator. What the simulator adds is left out: links (FIFO order,
 * message numbers, loss and duplication), crashed and paused nodes, the protocol runtime (each
 * handler's outputs taken together), counters and trace hooks. Returns the deliveries made.
 */
export function bareAllToAll(n: number, rounds: number): number {
  const heap: Pending[] = []
  let seq = 0
  let now = 0
  let delivered = 0
  let state = 1
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 4294967296
  }
  const got = new Array<number>(n).fill(0)
  const round = new Array<number>(n).fill(0)
  const broadcast = (from: number, msg: number) => {
    for (let to = 0; to < n; to++) {
      if (to !== from) push(heap, { t: now + 1 + random() * 4, seq: seq++, to, msg })
    }
  }
  for (let node = 0; node < n; node++) broadcast(node, 0)
  while (heap.length > 0) {
    const next = pop(heap)
    now = next.t
    delivered++
    if (++got[next.to]! === n - 1) {
      got[next.to] = 0
      if (++round[next.to]! < rounds) broadcast(next.to, round[next.to]!)
    }
  }
  return delivered
}

interface Pending {
  t: number
  seq: number
  to: number
  msg: number
}

const before = (a: Pending, b: Pending) => a.t < b.t || (a.t === b.t && a.seq < b.seq)

function push(heap: Pending[], item: Pending): void {
  let i = heap.length
  heap.push(item)
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (before(heap[parent]!, item)) break
    heap[i] = heap[parent]!
    i = parent
  }
  heap[i] = item
}

function pop(heap: Pending[]): Pending {
  const top = heap[0]!
  const last = heap.pop()!
  const size = heap.length
  if (size === 0) return top
  let i = 0
  for (;;) {
    const left = 2 * i + 1
    if (left >= size) break
    const child = left + 1 < size && before(heap[left + 1]!, heap[left]!) ? left + 1 : left
    if (before(last, heap[child]!)) break
    heap[i] = heap[child]!
    i = child
  }
  heap[i] = last
  return top
}
