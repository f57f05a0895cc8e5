/**
 * The shortest edit script between two lists of lines (Myers' O((N+M)D) algorithm), so that an
 * event moved or inserted in a trace shows as that one line, not as every line after it.
 */

export type DiffOp = { kind: ' ' | '-' | '+'; line: string }

/**
 * Lines kept (' '), removed ('-') and added ('+'), in order. Beyond `maxEdits` differences the
 * search stops (its cost grows with them) and the differing middle is shown as removed, then added.
 */
export function diffLines(
  before: readonly string[],
  after: readonly string[],
  maxEdits = 1000,
): DiffOp[] {
  let head = 0
  while (head < before.length && head < after.length && before[head] === after[head]) head++
  let tail = 0
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++
  const a = before.slice(head, before.length - tail)
  const b = after.slice(head, after.length - tail)
  const middle = myers(a, b, maxEdits) ?? [
    ...a.map((line): DiffOp => ({ kind: '-', line })),
    ...b.map((line): DiffOp => ({ kind: '+', line })),
  ]
  return [
    ...before.slice(0, head).map((line): DiffOp => ({ kind: ' ', line })),
    ...middle,
    ...before.slice(before.length - tail).map((line): DiffOp => ({ kind: ' ', line })),
  ]
}

function myers(a: readonly string[], b: readonly string[], maxEdits: number): DiffOp[] | undefined {
  const n = a.length
  const m = b.length
  const max = Math.min(n + m, maxEdits)
  const offset = max + 1
  // v[k + offset]: the furthest x reached on diagonal k; one copy kept per d to walk back.
  let v = new Array<number>(2 * max + 3).fill(0)
  const history: number[][] = []
  for (let d = 0; d <= max; d++) {
    history.push(v.slice())
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[k - 1 + offset]! < v[k + 1 + offset]!)
      let x = down ? v[k + 1 + offset]! : v[k - 1 + offset]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[k + offset] = x
      if (x >= n && y >= m) return walkBack(a, b, history, offset, d, k)
    }
    v = v.slice()
  }
  return undefined
}

function walkBack(
  a: readonly string[],
  b: readonly string[],
  history: number[][],
  offset: number,
  dEnd: number,
  kEnd: number,
): DiffOp[] {
  const ops: DiffOp[] = []
  let x = a.length
  let y = b.length
  let k = kEnd
  for (let d = dEnd; d > 0; d--) {
    const v = history[d]!
    const down = k === -d || (k !== d && v[k - 1 + offset]! < v[k + 1 + offset]!)
    const prevK = down ? k + 1 : k - 1
    const prevX = v[prevK + offset]!
    const prevY = prevX - prevK
    while (x > prevX && y > prevY) {
      y--
      ops.push({ kind: ' ', line: a[--x]! })
    }
    if (down) ops.push({ kind: '+', line: b[--y]! })
    else ops.push({ kind: '-', line: a[--x]! })
    k = prevK
  }
  while (x > 0 && y > 0) {
    y--
    ops.push({ kind: ' ', line: a[--x]! })
  }
  return ops.reverse()
}
