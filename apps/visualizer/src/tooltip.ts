/// <reference lib="dom" />
import type { Details } from './describe.js'

/** The hover box over a mark or an arrow: its details, kept inside the window. */
export interface Tooltip {
  show(d: Details, ev: MouseEvent): void
  move(ev: MouseEvent): void
  hide(): void
  /** Hides the box when what it describes is gone or hidden (no mouseleave comes then). */
  hideIfGone(): void
}

export function createTooltip(box: HTMLElement): Tooltip {
  /** The mark or arrow the tooltip is about: hidden with it (a step, a filter, a redraw). */
  let owner: Element | undefined

  const move = (ev: MouseEvent): void => {
    const pad = 14
    const w = box.offsetWidth
    const h = box.offsetHeight
    let x = ev.clientX + pad
    let y = ev.clientY + pad
    if (x + w > window.innerWidth - 4) x = Math.max(4, ev.clientX - w - pad)
    if (y + h > window.innerHeight - 4) y = Math.max(4, ev.clientY - h - pad)
    box.style.left = `${x}px`
    box.style.top = `${y}px`
  }
  const hide = (): void => {
    box.hidden = true
    owner = undefined
  }
  return {
    show(d, ev) {
      owner = ev.currentTarget instanceof Element ? ev.currentTarget : undefined
      box.replaceChildren()
      const title = document.createElement('div')
      title.className = 'tt-title'
      title.textContent = d.title
      const table = document.createElement('table')
      for (const [k, val] of d.rows) {
        const tr = table.insertRow()
        tr.insertCell().textContent = k
        tr.insertCell().textContent = val
      }
      box.append(title, table)
      box.hidden = false
      move(ev)
    },
    move,
    hide,
    hideIfGone() {
      if (owner && (!owner.isConnected || owner.closest('.off-time, .off-filter'))) hide()
    },
  }
}
