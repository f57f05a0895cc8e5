/// <reference lib="dom" />
import type { EventKind } from './model.js'
import { el } from './svg.js'

/** The mark of each event kind, drawn on the diagram and in the legend. */

/** A small shape per event kind, centered on (0, 0); the legend draws the same. */
export function drawMark(kind: EventKind, parent: Element, color?: string): void {
  switch (kind) {
    case 'send':
      el('circle', { r: 4.5, fill: color ?? '#333', class: 'shape' }, parent)
      break
    case 'deliver':
      el(
        'circle',
        { r: 4.5, fill: '#fff', stroke: color ?? '#333', 'stroke-width': 2, class: 'shape' },
        parent,
      )
      break
    case 'emit':
      el(
        'polygon',
        {
          points: star(6.5, 2.8),
          fill: '#f2b705',
          stroke: '#7a5c00',
          'stroke-width': 0.8,
          class: 'shape',
        },
        parent,
      )
      break
    case 'request':
      el('rect', { x: -4, y: -4, width: 8, height: 8, fill: '#7b3fa0', class: 'shape' }, parent)
      break
    case 'timer-fire':
      el('polygon', { points: '0,-5.5 5,4 -5,4', fill: '#138a8a', class: 'shape' }, parent)
      break
    case 'timer-set':
      el('line', { x1: 0, y1: -6, x2: 0, y2: 6, stroke: '#138a8a', 'stroke-width': 1.5 }, parent)
      break
    case 'timer-cancel':
      el(
        'path',
        { d: 'M-3,-3L3,3M3,-3L-3,3', stroke: '#138a8a', 'stroke-width': 1.5, fill: 'none' },
        parent,
      )
      break
    case 'storage':
      el('rect', { x: -2.5, y: -2.5, width: 5, height: 5, fill: '#999', class: 'shape' }, parent)
      break
    case 'start':
      el('line', { x1: 0, y1: -8, x2: 0, y2: 8, stroke: '#222', 'stroke-width': 2.5 }, parent)
      break
    case 'crash':
      el(
        'path',
        { d: 'M-6,-6L6,6M6,-6L-6,6', stroke: '#c0161d', 'stroke-width': 3.5, fill: 'none' },
        parent,
      )
      break
    case 'restart':
      el(
        'circle',
        { r: 6, fill: '#fff', stroke: '#1a8f3c', 'stroke-width': 2.5, class: 'shape' },
        parent,
      )
      el(
        'path',
        { d: 'M2,-7L6,-5L3,-2', stroke: '#1a8f3c', 'stroke-width': 2, fill: 'none' },
        parent,
      )
      break
    case 'pause':
      el('rect', { x: -5, y: -6, width: 3.5, height: 12, fill: '#b26b00', class: 'shape' }, parent)
      el('rect', { x: 1.5, y: -6, width: 3.5, height: 12, fill: '#b26b00', class: 'shape' }, parent)
      break
    case 'resume':
      el('polygon', { points: '-4,-6 6,0 -4,6', fill: '#b26b00', class: 'shape' }, parent)
      break
    case 'clock':
      el('polygon', { points: '0,-5 5,0 0,5 -5,0', fill: '#666', class: 'shape' }, parent)
      break
    case 'clock-step':
      el(
        'circle',
        { r: 5.5, fill: '#fff', stroke: '#444', 'stroke-width': 1.6, class: 'shape' },
        parent,
      )
      el(
        'path',
        { d: 'M0,-3.5L0,0L2.5,1.5', stroke: '#444', 'stroke-width': 1.4, fill: 'none' },
        parent,
      )
      break
    case 'error':
      el('circle', { r: 6, fill: '#c0161d', class: 'shape' }, parent)
      el(
        'text',
        { y: 4, 'text-anchor': 'middle', fill: '#fff', 'font-size': 10 },
        parent,
      ).textContent = '!'
      break
    default:
      el('circle', { r: 5, fill: color ?? '#444', class: 'shape' }, parent)
  }
}

function star(outer: number, inner: number): string {
  const points: string[] = []
  for (let i = 0; i < 10; i++) {
    const r = i % 2 === 0 ? outer : inner
    const a = (Math.PI / 5) * i - Math.PI / 2
    points.push(`${(r * Math.cos(a)).toFixed(2)},${(r * Math.sin(a)).toFixed(2)}`)
  }
  return points.join(' ')
}
