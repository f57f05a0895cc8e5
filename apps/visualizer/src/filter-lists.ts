/// <reference lib="dom" />
import { type Filters, NO_PROTO, protoChoices } from './filters.js'
import { buildLegend } from './legend.js'
import type { Diagram, EventKind } from './model.js'

/** The side panel's checkboxes for the filters (types, protocols, kinds), and the legend. */

export interface FilterBoxes {
  types: HTMLElement
  protos: HTMLElement
  kinds: HTMLElement
  legend: HTMLElement
}

const KIND_LABELS: [EventKind[], string][] = [
  [['emit'], 'events the protocol emits ★'],
  [['request'], 'local requests ■'],
  [['timer-fire'], 'timers firing ▲'],
  [['timer-set', 'timer-cancel'], 'timers set / cancelled'],
  [['storage'], 'stable storage writes'],
  [['start'], 'process starts'],
]

function checkbox(
  parent: HTMLElement,
  label: string,
  checked: boolean,
  onChange: (on: boolean) => void,
  attrs: Record<string, string> = {},
  swatch?: string,
): void {
  const row = document.createElement('label')
  const box = document.createElement('input')
  box.type = 'checkbox'
  box.checked = checked
  for (const [k, val] of Object.entries(attrs)) box.setAttribute(k, val)
  box.addEventListener('change', () => onChange(box.checked))
  row.append(box)
  if (swatch) {
    const s = document.createElement('span')
    s.className = 'swatch'
    s.style.background = swatch
    row.append(s)
  }
  row.append(` ${label}`)
  parent.append(row)
}

/** Fills the lists for `d`, ticked as `filters` say; a click updates `filters`, then `changed`. */
export function buildFilterLists(
  boxes: FilterBoxes,
  d: Diagram,
  filters: Filters,
  colors: Map<string, string>,
  changed: () => void,
): void {
  const { types: typeList, protos: protoList, kinds: kindList } = boxes
  typeList.replaceChildren()
  const counts = new Map<string, number>()
  for (const m of d.messages) counts.set(m.type, (counts.get(m.type) ?? 0) + 1)
  if (d.messageTypes.length === 0) typeList.textContent = 'no messages'
  for (const type of d.messageTypes) {
    checkbox(
      typeList,
      `${type} (${counts.get(type) ?? 0})`,
      !filters.hiddenTypes.has(type),
      (on) => {
        if (on) filters.hiddenTypes.delete(type)
        else filters.hiddenTypes.add(type)
        changed()
      },
      { 'data-type': type },
      colors.get(type),
    )
  }
  protoList.replaceChildren()
  const protos = protoChoices(d)
  protoList.parentElement!.hidden = protos.length === 0
  for (const proto of protos) {
    checkbox(
      protoList,
      proto === NO_PROTO ? '(no protocol)' : proto,
      !filters.hiddenProtos.has(proto),
      (on) => {
        if (on) filters.hiddenProtos.delete(proto)
        else filters.hiddenProtos.add(proto)
        changed()
      },
      { 'data-proto': proto },
    )
  }
  kindList.replaceChildren()
  const present = new Set(d.events.map((e) => e.kind))
  for (const [kinds, label] of KIND_LABELS) {
    if (!kinds.some((k) => present.has(k))) continue
    checkbox(
      kindList,
      label,
      !kinds.some((k) => filters.hiddenKinds.has(k)),
      (on) => {
        for (const k of kinds) {
          if (on) filters.hiddenKinds.delete(k)
          else filters.hiddenKinds.add(k)
        }
        changed()
      },
      { 'data-kind': kinds.join(' ') },
    )
  }
  buildLegend(boxes.legend, d)
}
