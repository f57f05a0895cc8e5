/**
 * Colors for message types, in the order of the sorted type names: a hand-picked palette for the
 * first ten, then hues spread by the golden angle at alternating lightness, so that no two types
 * share a color however many there are (a cluster trace has ack, renew, grant, vote... more than ten).
 */
const PALETTE = [
  '#1f77b4',
  '#2ca02c',
  '#9467bd',
  '#d62728',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#7f7f7f',
  '#ff7f0e',
]

/** Candidates past the palette: 36 hues at three lightnesses and two saturations. */
const CANDIDATES: string[] = []
for (let h = 0; h < 360; h += 10)
  for (const [sat, light] of [
    [75, 32],
    [70, 45],
    [55, 58],
    [45, 25],
    [80, 52],
    [40, 40],
  ] as const)
    CANDIDATES.push(hslToHex(h, sat, light))

const rgb = (c: string) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16))
const distance = (a: number[], b: number[]) =>
  Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!)

const chosen: string[] = [...PALETTE]

/**
 * The color of the `i`-th type: the palette, then each time the candidate farthest from every
 * color already given (the same sequence on every page load).
 */
export function colorAt(i: number): string {
  while (chosen.length <= i && chosen.length < CANDIDATES.length) {
    const taken = chosen.map(rgb)
    let best = ''
    let bestDistance = -1
    for (const c of CANDIDATES) {
      if (chosen.includes(c)) continue
      const v = rgb(c)
      const d = Math.min(...taken.map((t) => distance(t, v)))
      if (d > bestDistance) {
        bestDistance = d
        best = c
      }
    }
    chosen.push(best)
  }
  return chosen[Math.min(i, chosen.length - 1)]!
}

export function typeColors(types: readonly string[]): Map<string, string> {
  return new Map(types.map((t, i) => [t, colorAt(i)]))
}

function hslToHex(h: number, s: number, l: number): string {
  const a = (s / 100) * Math.min(l / 100, 1 - l / 100)
  const channel = (n: number) => {
    const k = (n + h / 30) % 12
    const v = l / 100 - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))
    return Math.round(v * 255)
      .toString(16)
      .padStart(2, '0')
  }
  return `#${channel(0)}${channel(8)}${channel(4)}`
}
