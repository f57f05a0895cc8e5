/// <reference lib="dom" />
/**
 * The steering panels: what is pending (messages in flight with their type and payload, timers,
 * requests and planned actions) and what can be done to each node and link. Every button
 * carries the step it takes as `data-step` (its word, as in the URL), so one click handler
 * serves them all.
 */
import type { Choice, NodeId, SimNetwork } from '@sd/transport'

const MAX_PAYLOAD = 90
/** Pending events listed at most (a large run has thousands in flight): the earliest due. */
export const MAX_LISTED = 100

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
  if (text !== undefined) e.textContent = text
  return e
}

function button(step: string, label: string, title?: string): HTMLButtonElement {
  const b = el('button', { type: 'button', 'data-step': step }, label)
  if (title) b.title = title
  return b
}

function payload(msg: unknown): string {
  let text: string
  try {
    text = JSON.stringify(msg) ?? String(msg)
  } catch {
    text = String(msg)
  }
  return text.length > MAX_PAYLOAD ? `${text.slice(0, MAX_PAYLOAD - 1)}…` : text
}

function typeOf(msg: unknown): string {
  return typeof msg === 'object' && msg !== null && 'type' in msg ? String(msg.type) : 'message'
}

/**
 * The pending events as a list: the one the run would take next first (marked), then the
 * others by due time. Messages behind the head of a FIFO link are counted, not offered.
 */
export function renderPending(box: HTMLElement, net: SimNetwork, next: string | undefined): void {
  const choices = [...net.choices()].sort((a, b) => a.t - b.t || (a.key < b.key ? -1 : 1))
  const list = el('ul', { class: 'pending' })
  for (const c of choices) list.append(pendingItem(c, c.key === next, net.now))
  const held = net.pendingKeys().length - net.choices('any-order').length
  box.replaceChildren(list)
  if (choices.length === 0)
    box.append(el('p', { class: 'hint' }, 'nothing pending: the run is over'))
  if (held > 0)
    box.append(
      el(
        'p',
        { class: 'hint' },
        `${held} more behind the head of their FIFO link or a later timer`,
      ),
    )
}

function pendingItem(c: Choice, isNext: boolean, now: number): HTMLLIElement {
  const li = el('li', { 'data-choice': c.key, 'data-kind': c.kind })
  if (isNext) li.dataset.next = ''
  const due = c.t <= now ? 'due now' : `due ${(c.t - now).toFixed(3)} ms`
  const what =
    c.kind === 'deliver'
      ? `${String(c.from)}→${String(c.to)} ${typeOf(c.msg)}`
      : c.kind === 'timer'
        ? `timer ${c.label ?? ''} at ${String(c.owner)}`
        : c.kind === 'request'
          ? `request at ${String(c.owner)}`
          : 'planned action'
  const head = el('div', { class: 'what' })
  head.append(el('b', {}, what), el('span', { class: 'due' }, ` ${due}${isNext ? ' · next' : ''}`))
  li.append(head)
  if (c.kind === 'deliver') li.append(el('code', { class: 'payload' }, payload(c.msg)))
  const acts = el('div', { class: 'acts' })
  acts.append(button(c.key, c.kind === 'deliver' ? 'deliver' : 'fire', 'make it happen now'))
  if (c.kind === 'deliver')
    acts.append(
      button(`drop:${c.key}`, 'drop', 'lose this message'),
      button(`dup:${c.key}`, 'dup', 'deliver it and keep a copy in flight'),
    )
  li.append(acts)
  return li
}

/**
 * One row per node: up, crashed or paused, its wall clock, the faults that apply to it now, and
 * its state: the protocol's snapshot when every node has one (`net.fingerprint()`), otherwise the
 * last event it emitted.
 */
export function renderNodes(
  box: HTMLElement,
  net: SimNetwork,
  emitted: ReadonlyArray<{ node: NodeId; event: unknown }>,
): void {
  const rows = el('div', { class: 'node-rows' })
  const print = net.fingerprint()
  const snapshots = new Map(print?.nodes.map((n) => [String(n.id), n.state]))
  const last = new Map<string, unknown>()
  for (const { node, event } of emitted) last.set(String(node), event)
  for (const id of net.nodeIds) {
    rows.append(nodeRow(net, id))
    const name = String(id)
    const state = print
      ? `state ${payload(snapshots.get(name))}`
      : last.has(name)
        ? `last emitted ${payload(last.get(name))}`
        : 'nothing emitted yet'
    const info = el('div', { class: 'node-info', 'data-node-info': name })
    info.append(
      el('span', { class: 'node-clock' }, `clock ${net.clockOf(id).toFixed(3)} ms · `),
      el('code', {}, state),
    )
    rows.append(info)
  }
  box.replaceChildren(rows)
}

function nodeRow(net: SimNetwork, id: NodeId): HTMLDivElement {
  const name = String(id)
  const crashed = net.isCrashed(id)
  const paused = net.isPaused(id)
  const row = el('div', { class: 'node-row', 'data-node': name })
  row.dataset.state = crashed ? 'crashed' : paused ? 'paused' : 'up'
  row.append(
    el('span', { class: 'node-name' }, name),
    el('span', { class: 'node-state' }, row.dataset.state),
  )
  if (crashed) row.append(button(`restart:${name}`, 'restart'))
  else {
    row.append(button(`crash:${name}`, 'crash'))
    row.append(paused ? button(`resume:${name}`, 'resume') : button(`hold:${name}`, 'pause'))
    row.append(
      button(`step:${name}@-500`, 'clock −500', 'step its wall clock back 500 ms'),
      button(`step:${name}@500`, 'clock +500', 'step its wall clock forward 500 ms'),
    )
  }
  return row
}

/** Cut or mend a link (both ways), isolate a node by a partition, heal partitions. */
export function renderLinks(box: HTMLElement, net: SimNetwork, act: (step: string) => void): void {
  const ids = net.nodeIds.map(String)
  const pick = (id: string) => {
    const s = el('select', { id })
    for (const n of ids) s.append(el('option', { value: n }, n))
    return s
  }
  const a = pick('link-a')
  const b = pick('link-b')
  if (ids.length > 1) b.value = ids[1]!
  const cut = el('button', { type: 'button', id: 'cut' }, 'cut')
  const mend = el('button', { type: 'button', id: 'mend' }, 'mend')
  cut.onclick = () => act(`cut:${a.value}-${b.value}`)
  mend.onclick = () => act(`mend:${a.value}-${b.value}`)
  const lone = pick('isolate-node')
  const isolate = el('button', { type: 'button', id: 'isolate' }, 'isolate')
  isolate.onclick = () => {
    const rest = ids.filter((id) => id !== lone.value)
    act(`part:${lone.value}|${rest.join(',')}`)
  }
  const line1 = el('div', { class: 'link-row' })
  line1.append('link ', a, ' – ', b, ' ', cut, mend)
  const line2 = el('div', { class: 'link-row' })
  line2.append('partition ', lone, ' ', isolate, ' ', button('heal', 'heal all'))
  box.replaceChildren(line1, line2)
}
