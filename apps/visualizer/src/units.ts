/** Times as the page writes them. */

/** `+500 ms`, `-1.5 ms`: a clock step. */
export function signedMs(ms: number): string {
  return `${ms >= 0 ? '+' : ''}${Number(ms.toFixed(3))} ms`
}

/** `37.469 ms`, or `log position 12` for logs without time. */
export function formatTime(t: number, unit: 'ms' | 'step'): string {
  if (unit === 'step') return `log position ${t}`
  return `${Number.isInteger(t) ? t : t.toFixed(3)} ms`
}
