/** How `pnpm bench` and `pnpm bench:against` print figures: a plain text table. */

export function formatFigure(n: number): string {
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US')
  return n.toPrecision(3)
}

export function printTable(head: string[], body: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')
  console.log(line(head))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const row of body) console.log(line(row))
}
