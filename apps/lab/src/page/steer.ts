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

/** What the panels show and do: the live network, and the steps their buttons take. */
export interface Steer {
  atLive: boolean
  net: SimNetwork
  emitted: () => ReadonlyArray<{ node: NodeId; event: unknown }>
  /** *Branch here* clicked. */
  branch: () => void
  /** A step by its word (cut, mend, isolate). */
  take: (step: string) => void
}

/**
 * The panels at the step shown: at the live end *Pending*, *Nodes* and *Links*, each timed; in
 * the past the *Branch here* hint, the panels hidden, not emptied, so that back at the live end
 * (a branch) their rows are kept where they still hold (and the hint, hidden, is kept likewise).
 */
export function renderSteer(
  boxes: { past: HTMLElement; pending: HTMLElement; nodes: HTMLElement; links: HTMLElement },
  steer: Steer,
  timed: (name: string, f: () => void) => void,
): void {
  const { past, pending, nodes, links } = boxes
  for (const box of [pending, nodes, links]) box.hidden = !steer.atLive
  past.hidden = steer.atLive
  if (!steer.atLive) {
    if (past.firstChild) return
    const hint = el(
      'p',
      { class: 'hint' },
      'A step in the past: choose here to branch (the run is re-executed up to this step, and the old line is kept).',
    )
    const b = el('button', { type: 'button', id: 'branch' }, 'Branch here')
    b.onclick = steer.branch
    past.replaceChildren(hint, b)
    return
  }
  // The hint and *Branch here* stay, hidden: removing the button just clicked (focused) makes
  // the browser work out the page's style there and then (4 to 5 ms on the 5,000-event run).
  const { net } = steer
  timed('pending', () => {
    const choices = net.choices()
    renderPending(pending, net, choices, nextKey(choices))
  })
  timed('nodes', () => renderNodes(nodes, net, steer.emitted()))
  timed('links', () => renderLinks(links, net, steer.take))
}

/** The event the run would take by itself next (marked in the list). */
function nextKey(choices: readonly Choice[]): string | undefined {
  let best: { key: string; t: number } | undefined
  for (const c of choices) if (best === undefined || c.t < best.t) best = c
  return best?.key
}

/** A row of the pending list as drawn, to be kept while its event is the same. */
interface PendingRow {
  li: HTMLLIElement
  due: HTMLSpanElement
  /** What the row says but for its due time (the event's kind, time and summary). */
  sig: string
  /** The message drawn, and its payload as shown (a rewound network holds copies of it). */
  msg: unknown
  text: string
  dueText: string
  next: boolean
}

/** The list drawn in a box, its rows by choice key, and the hints under it. */
const pendingOf = new WeakMap<
  HTMLElement,
  { list: HTMLUListElement; rows: Map<string, PendingRow>; hints: string; hintEls: Element[] }
>()

/**
 * The pending events as a list: the one the run would take next first (marked), then the
 * others by due time, the first `MAX_LISTED` (the others counted). Messages behind the head of a
 * FIFO link are counted, not offered. A step
 * changes a few of them: the rows of events still pending are kept (their due time written
 * again), the others removed and the new ones made, all without reading the layout. The markup
 * is the one a fresh list would have (the browser test compares them).
 */
export function renderPending(
  box: HTMLElement,
  net: SimNetwork,
  choices: readonly Choice[],
  next: string | undefined,
): void {
  const all = [...choices].sort((a, b) => a.t - b.t || (a.key < b.key ? -1 : 1))
  // The earliest due: a large run has hundreds pending (235 at the middle of the 5,000-event run,
  // 1,464 at step 3,000), and a branch makes a row for each.
  const sorted = all.slice(0, MAX_LISTED)
  let state = pendingOf.get(box)
  if (!state || state.list.parentNode !== box) {
    state = { list: el('ul', { class: 'pending' }), rows: new Map(), hints: '', hintEls: [] }
    box.replaceChildren(state.list)
    pendingOf.set(box, state)
  }
  const { list } = state
  const rows = new Map<string, PendingRow>()
  for (const c of sorted) {
    const isNext = c.key === next
    const sig = `${c.kind} ${c.t} ${whatOf(c)}`
    const msg = c.kind === 'deliver' ? c.msg : undefined
    let row = state.rows.get(c.key)
    // A copy of the message drawn (a network rewound from a checkpoint) is the same row.
    if (row && row.sig === sig && row.msg !== msg && payload(msg) === row.text) row.msg = msg
    if (!row || row.sig !== sig || row.msg !== msg) row = pendingItem(c, sig, msg, isNext, net.now)
    else {
      const text = dueText(c, isNext, net.now)
      if (row.dueText !== text) row.due.textContent = row.dueText = text
      if (row.next !== isNext) {
        if (isNext) row.li.dataset.next = ''
        else delete row.li.dataset.next
        row.next = isNext
      }
    }
    rows.set(c.key, row)
  }
  for (const [key, row] of state.rows) if (rows.get(key) !== row) row.li.remove()
  let at = list.firstChild
  for (const row of rows.values()) {
    if (at !== row.li) list.insertBefore(row.li, at)
    else at = at.nextSibling
  }
  state.rows = rows
  const held = net.pendingKeys().length - net.choices('any-order').length
  const hints = [
    ...(sorted.length === 0 ? ['nothing pending: the run is over'] : []),
    ...(all.length > sorted.length
      ? [`${all.length - sorted.length} more due later, not listed`]
      : []),
    ...(held > 0 ? [`${held} more behind the head of their FIFO link or a later timer`] : []),
  ]
  if (hints.join('\n') !== state.hints) {
    for (const e of state.hintEls) e.remove()
    state.hintEls = hints.map((text) => el('p', { class: 'hint' }, text))
    box.append(...state.hintEls)
    state.hints = hints.join('\n')
  }
}

function whatOf(c: Choice): string {
  return c.kind === 'deliver'
    ? `${String(c.from)}→${String(c.to)} ${typeOf(c.msg)}`
    : c.kind === 'timer'
      ? `timer ${c.label ?? ''} at ${String(c.owner)}`
      : c.kind === 'request'
        ? `request at ${String(c.owner)}`
        : 'planned action'
}

function dueText(c: Choice, isNext: boolean, now: number): string {
  const due = c.t <= now ? 'due now' : `due ${(c.t - now).toFixed(3)} ms`
  return ` ${due}${isNext ? ' · next' : ''}`
}

/** A pending row as drawn, its texts left empty: a deliver's and a timer's, request's or action's. */
const rowMarkup = new Map<boolean, HTMLLIElement>()

/**
 * The row of a pending event, copied from its kind's markup and filled in: quicker than made
 * element by element when a hundred are made at once (a branch far back).
 */
function pendingItem(
  c: Choice,
  sig: string,
  msg: unknown,
  isNext: boolean,
  now: number,
): PendingRow {
  const deliver = c.kind === 'deliver'
  let markup = rowMarkup.get(deliver)
  if (!markup) {
    markup = emptyRow(deliver)
    rowMarkup.set(deliver, markup)
  }
  const li = markup.cloneNode(true) as HTMLLIElement
  li.setAttribute('data-choice', c.key)
  li.setAttribute('data-kind', c.kind)
  if (isNext) li.dataset.next = ''
  const head = li.firstElementChild!
  head.firstElementChild!.textContent = whatOf(c)
  const due = head.lastElementChild as HTMLSpanElement
  due.textContent = dueText(c, isNext, now)
  const text = deliver ? payload(c.msg) : ''
  if (deliver) head.nextElementSibling!.textContent = text
  const [take, drop, dup] = li.lastElementChild!.children
  take!.setAttribute('data-step', c.key)
  drop?.setAttribute('data-step', `drop:${c.key}`)
  dup?.setAttribute('data-step', `dup:${c.key}`)
  return { li, due, sig, msg, text, dueText: due.textContent!, next: isNext }
}

/** A pending row's elements and attributes in their order, its texts and keys empty. */
function emptyRow(deliver: boolean): HTMLLIElement {
  const li = el('li', { 'data-choice': '', 'data-kind': '' })
  const head = el('div', { class: 'what' })
  head.append(el('b'), el('span', { class: 'due' }))
  li.append(head)
  if (deliver) li.append(el('code', { class: 'payload' }))
  const acts = el('div', { class: 'acts' })
  acts.append(button('', deliver ? 'deliver' : 'fire', 'make it happen now'))
  if (deliver)
    acts.append(
      button('', 'drop', 'lose this message'),
      button('', 'dup', 'deliver it and keep a copy in flight'),
    )
  li.append(acts)
  return li
}

/** A node's row and its line of state as drawn, to be written again only where they changed. */
interface NodeRows {
  row: HTMLDivElement
  /** Up, crashed or paused: what the row's buttons depend on. */
  state: string
  clock: HTMLSpanElement
  clockText: string
  code: HTMLElement
  stateText: string
}

const nodesOf = new WeakMap<HTMLElement, { box: HTMLDivElement; ids: string; rows: NodeRows[] }>()

/**
 * One row per node: up, crashed or paused, its wall clock, the faults that apply to it now, and
 * its state: the protocol's snapshot when every node has one (`net.stateOf`), otherwise the
 * last event it emitted. Kept from step to step: a row is made again only when its node went
 * down, up or paused; its clock and state only written when their text changed.
 */
export function renderNodes(
  box: HTMLElement,
  net: SimNetwork,
  emitted: ReadonlyArray<{ node: NodeId; event: unknown }>,
): void {
  // Each node's snapshot alone (`stateOf`): the whole fingerprint would also write out every
  // message in flight, hundreds on a long run, at every step.
  const states = net.nodeIds.map((id) => net.stateOf(id))
  const print = states.every((s) => s !== undefined)
  const snapshots = new Map(net.nodeIds.map((id, i) => [String(id), states[i]]))
  const last = new Map<string, unknown>()
  if (!print) for (const { node, event } of emitted) last.set(String(node), event)
  const ids = net.nodeIds.map(String).join(',')
  let state = nodesOf.get(box)
  const fresh = !state || state.ids !== ids || state.box.parentNode !== box
  if (fresh) state = { box: el('div', { class: 'node-rows' }), ids, rows: [] }
  const s = state!
  net.nodeIds.forEach((id, i) => {
    const name = String(id)
    const status = net.isCrashed(id) ? 'crashed' : net.isPaused(id) ? 'paused' : 'up'
    const clockText = `clock ${net.clockOf(id).toFixed(3)} ms · `
    const stateText = print
      ? `state ${payload(snapshots.get(name))}`
      : last.has(name)
        ? `last emitted ${payload(last.get(name))}`
        : 'nothing emitted yet'
    const had = s.rows[i]
    if (!had) {
      const row = nodeRow(id, status)
      const info = el('div', { class: 'node-info', 'data-node-info': name })
      const clock = el('span', { class: 'node-clock' }, clockText)
      const code = el('code', {}, stateText)
      info.append(clock, code)
      s.box.append(row, info)
      s.rows.push({ row, state: status, clock, clockText, code, stateText })
      return
    }
    if (had.state !== status) {
      const row = nodeRow(id, status)
      had.row.replaceWith(row)
      had.row = row
      had.state = status
    }
    if (had.clockText !== clockText) had.clock.textContent = had.clockText = clockText
    if (had.stateText !== stateText) had.code.textContent = had.stateText = stateText
  })
  if (fresh) {
    box.replaceChildren(s.box)
    nodesOf.set(box, s)
  }
}

function nodeRow(id: NodeId, status: string): HTMLDivElement {
  const name = String(id)
  const crashed = status === 'crashed'
  const paused = status === 'paused'
  const row = el('div', { class: 'node-row', 'data-node': name })
  row.dataset.state = status
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

/** The nodes whose links a box offers, and its first row (gone: the box was emptied). */
const linksOf = new WeakMap<HTMLElement, { ids: string; first: Element }>()

/**
 * Cut or mend a link (both ways), isolate a node by a partition, heal partitions. Made once for
 * a set of nodes (a step leaves it, and the nodes picked, as they are).
 */
export function renderLinks(box: HTMLElement, net: SimNetwork, act: (step: string) => void): void {
  const ids = net.nodeIds.map(String)
  const had = linksOf.get(box)
  if (had && had.ids === ids.join(',') && had.first.parentNode === box) return
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
  linksOf.set(box, { ids: ids.join(','), first: line1 })
}
