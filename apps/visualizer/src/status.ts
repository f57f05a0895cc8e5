/// <reference lib="dom" />

/**
 * The status line under the controls: *now*, the step, and what is shown. Each part has a width
 * fixed for the whole run (the longest it can get, in digit widths, with tabular numerals), so the
 * line does not jump while stepping.
 */
export interface StatusParts {
  time: string
  step: number
  steps: number
  events: number
  arrows: number
}

/** Fills `line` with the parts; `widest` is the longest time text the run can show. */
export function writeStatus(line: HTMLElement, p: StatusParts, widest: string): void {
  const digits = String(Math.max(p.steps, p.events, p.arrows)).length
  const part = (text: string, ch: number) => {
    const span = document.createElement('span')
    span.className = 'status-part'
    span.style.minWidth = `${ch}ch`
    span.textContent = text
    return span
  }
  const steps = String(p.steps).length
  line.replaceChildren(
    part(p.time, Math.max(widest.length, 'start'.length) + 1),
    ' · ',
    part(`step ${p.step} of ${p.steps}`, 'step  of '.length + 2 * steps + 1),
    ' · ',
    part(
      `${p.events} events, ${p.arrows} arrows shown`,
      'events, arrows shown  '.length + 2 * digits + 1,
    ),
  )
}
