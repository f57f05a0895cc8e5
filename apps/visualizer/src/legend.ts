/// <reference lib="dom" />
import type { Diagram, EventKind } from './model.js'
import { drawMark } from './render.js'

/** The legend: one row per kind of mark, arrow and band the open trace draws. */

const LEGEND: [EventKind, string][] = [
  ['send', 'send (colored by message type)'],
  ['deliver', 'delivery'],
  ['emit', 'event emitted by the protocol'],
  ['request', 'local request'],
  ['timer-fire', 'timer fires'],
  ['timer-set', 'timer set'],
  ['timer-cancel', 'timer cancelled'],
  ['storage', 'storage write'],
  ['start', 'process starts'],
  ['crash', 'crash'],
  ['restart', 'restart'],
  ['pause', 'paused'],
  ['resume', 'resumed'],
  ['clock', 'clock set'],
  ['clock-step', 'wall clock stepped'],
  ['error', 'error'],
  ['log', 'logged event (ShiViz)'],
]

export function icon(draw: (svg: SVGSVGElement) => void): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg')
  svg.setAttribute('width', '34')
  svg.setAttribute('height', '18')
  svg.setAttribute('viewBox', '-17 -9 34 18')
  draw(svg)
  return svg
}

function legendRow(svg: SVGSVGElement, text: string): HTMLElement {
  const row = document.createElement('div')
  row.className = 'legend-row'
  row.append(svg, text)
  return row
}

function svgChild(parent: Element, name: string, attrs: Record<string, string>): void {
  const node = document.createElementNS('http://www.w3.org/2000/svg', name)
  for (const [k, val] of Object.entries(attrs)) node.setAttribute(k, val)
  parent.append(node)
}

/** The legend of what `d` draws into `legendBox`; before any trace, of the common marks. */
export function buildLegend(legendBox: HTMLElement, d?: Diagram): void {
  legendBox.replaceChildren()
  const present = new Set<EventKind>(
    d
      ? d.events.map((e) => e.kind)
      : ['send', 'deliver', 'emit', 'request', 'timer-fire', 'crash', 'restart'],
  )
  for (const [kind, text] of LEGEND) {
    if (!present.has(kind)) continue
    legendBox.append(
      legendRow(
        icon((svg) => drawMark(kind, svg)),
        text,
      ),
    )
  }
  legendBox.append(
    legendRow(
      icon((svg) => {
        svgChild(svg, 'line', {
          x1: '-14',
          y1: '0',
          x2: '10',
          y2: '0',
          stroke: '#555',
          'stroke-width': '1.6',
        })
        svgChild(svg, 'polygon', { points: '14,0 6,-4 6,4', fill: '#555' })
      }),
      'message, from its send to its delivery',
    ),
  )
  if (!d) return
  if (d.messages.some((m) => m.outcome === 'drop'))
    legendBox.append(
      legendRow(
        icon((svg) => {
          svgChild(svg, 'line', {
            x1: '-14',
            y1: '0',
            x2: '8',
            y2: '0',
            stroke: '#555',
            'stroke-dasharray': '3 2',
          })
          svgChild(svg, 'path', {
            d: 'M3,-5L13,5M13,-5L3,5',
            stroke: '#c0161d',
            'stroke-width': '2',
          })
        }),
        'message dropped (the reason is written)',
      ),
    )
  if (d.messages.some((m) => m.resendOf !== undefined))
    legendBox.append(
      legendRow(
        icon((svg) => {
          svgChild(svg, 'line', {
            x1: '-8',
            y1: '0',
            x2: '10',
            y2: '0',
            stroke: '#555',
            'stroke-width': '1.6',
            'stroke-dasharray': '8 2 2 2',
          })
          svgChild(svg, 'polygon', { points: '14,0 6,-4 6,4', fill: '#555' })
        }),
        '↻ resent by the link (an earlier copy was dropped)',
      ),
    )
  if (d.duplicates.length > 0)
    legendBox.append(
      legendRow(
        icon(() => {}),
        '⧉ duplicated by the network: two arrows, one id',
      ),
    )
  if (d.messages.some((m) => m.outcome === 'in-flight'))
    legendBox.append(
      legendRow(
        icon(() => {}),
        'arrow to the right edge: still in flight at the end',
      ),
    )
  if (d.down.length > 0)
    legendBox.append(bandRow('down', 12, 'process down (crashed, until its restart)'))
  if (d.partitions.length > 0)
    legendBox.append(bandRow('partition-swatch', 16, 'network partitioned (until heal)'))
  if (d.losses.length > 0)
    legendBox.append(bandRow('loss-swatch', 16, 'packet loss (the percent dropped)'))
  if (d.paused.length > 0)
    legendBox.append(bandRow('paused-swatch', 12, 'process paused (until it resumes)'))
  if (d.marks.length > 0)
    legendBox.append(
      legendRow(
        icon((svg) =>
          svgChild(svg, 'line', {
            x1: '0',
            y1: '-8',
            x2: '0',
            y2: '8',
            stroke: '#2f4b6e',
            'stroke-width': '1.4',
            'stroke-dasharray': '4 2',
          }),
        ),
        'a mark the run wrote (workload starts...)',
      ),
    )
}

/** A legend row for a band: a swatch of its class, `height` px high. */
function bandRow(cls: string, height: number, text: string): HTMLElement {
  return legendRow(
    icon((svg) =>
      svgChild(svg, 'rect', {
        x: '-14',
        y: String(-height / 2),
        width: '28',
        height: String(height),
        class: cls,
      }),
    ),
    text,
  )
}
