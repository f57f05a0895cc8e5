import type { Diagram, ProcessId, VizEvent } from './model.js'
import { fieldOf, unwrap } from './trace-entries.js'
import { signedMs } from './units.js'

/**
 * What the protocol's own events mean, drawn on the diagram: a short label for emitted events that
 * tell the story (acquired / released with the token, leader with the term, deadlock with the
 * cycle, adjusted with the offset), and a state lane per process derived from the events.
 */

type Fields = Record<string, unknown>

function fieldsOf(e: VizEvent): Fields | undefined {
  const { raw } = e
  if (raw === null || typeof raw !== 'object') return undefined
  const inner = unwrap(
    e.kind === 'emit'
      ? fieldOf(raw, 'event')
      : e.kind === 'request'
        ? fieldOf(raw, 'req')
        : undefined,
    e.kind === 'request' ? 'req' : 'event',
  )
  return inner !== null && typeof inner === 'object' ? (inner as Fields) : undefined
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
const signed = (v: number) => `${v >= 0 ? '+' : ''}${Number(v.toFixed(3))}`

/**
 * A fencing token. The mutexes pack a term (or generation) over a count, term x 2^32 + count:
 * `#1:7` reads better than `#4294967303`, and says which term granted it.
 */
export function tokenText(token: number): string {
  const high = Math.floor(token / 2 ** 32)
  return high > 0 && Number.isSafeInteger(token)
    ? `${high}:${token - high * 2 ** 32}`
    : String(token)
}

/** The label of an emitted event, or undefined for those that carry no story (ignored, phase...). */
export function markLabel(e: VizEvent): string | undefined {
  if (e.kind === 'clock-step') {
    const delta = num(fieldOf(e.raw, 'deltaMs'))
    return delta === undefined ? 'clock stepped' : `clock ${signedMs(delta)}`
  }
  if (e.kind !== 'emit') return undefined
  const f = fieldsOf(e)
  if (!f || typeof f.type !== 'string') return undefined
  const token = num(f.token)
  const term = num(f.term)
  switch (f.type) {
    case 'acquired':
    case 'released':
      return token === undefined ? f.type : `${f.type} #${tokenText(token)}`
    case 'leader':
    case 'elected':
    case 'coordinator': {
      const who = f.leader ?? f.coordinator
      return `${f.type}${who === undefined ? '' : ` ${String(who)}`}${term === undefined ? '' : ` t${term}`}`
    }
    case 'leader-lost':
    case 'stepped-down':
      return `${f.type}${term === undefined ? '' : ` t${term}`}`
    case 'deadlock': {
      const cycle = Array.isArray(f.cycle) ? f.cycle.map(String) : []
      const victim = f.victim === undefined ? '' : ` ✗${String(f.victim)}`
      return `deadlock ${cycle.length > 0 ? `${cycle.join('→')}→${cycle[0]}` : ''}${victim}`.trim()
    }
    case 'adjusted': {
      const offset = num(f.offsetMs) ?? num(f.offset) ?? num(f.adjustMs) ?? num(f.deltaMs)
      return offset === undefined ? 'adjusted' : `adjusted ${signed(offset)} ms`
    }
    case 'token-regenerated':
    case 'token-destroyed':
      return f.generation === undefined ? f.type : `${f.type} g${String(f.generation)}`
    default:
      return undefined
  }
}

export type LaneState = 'holder' | 'waiting' | 'leader' | 'follower' | 'crashed' | 'paused'

export interface LaneSegment {
  process: ProcessId
  state: LaneState
  /** Timeline seq where it begins, and where it ends (undefined: at the end of the run). */
  fromSeq: number
  toSeq?: number
}

interface ProcessState {
  crashed: boolean
  paused: boolean
  lock?: 'holder' | 'waiting'
  role?: 'leader' | 'follower'
}

/** What is shown: the most telling of the states a process is in at once. */
function shown(s: ProcessState): LaneState | undefined {
  if (s.crashed) return 'crashed'
  if (s.paused) return 'paused'
  return s.lock ?? s.role
}

const WANTS_LOCK = /^(acquire|lock|enter|request|want)/i

/** The state lanes of every process: consecutive segments of one state each. */
export function stateLanes(d: Diagram): LaneSegment[] {
  const states = new Map<ProcessId, ProcessState>(
    d.processes.map((p) => [p, { crashed: false, paused: false }]),
  )
  const open = new Map<ProcessId, LaneSegment>()
  const out: LaneSegment[] = []
  const update = (p: ProcessId, seq: number, change: (s: ProcessState) => void) => {
    const s = states.get(p)
    if (!s) return
    const before = shown(s)
    change(s)
    const after = shown(s)
    if (before === after) return
    const current = open.get(p)
    if (current) {
      current.toSeq = seq
      open.delete(p)
    }
    if (after) {
      const seg: LaneSegment = { process: p, state: after, fromSeq: seq }
      out.push(seg)
      open.set(p, seg)
    }
  }
  for (const e of d.events) {
    const p = e.process
    if (e.kind === 'crash')
      update(p, e.seq, (s) =>
        Object.assign(s, { crashed: true, paused: false, lock: undefined, role: undefined }),
      )
    else if (e.kind === 'restart')
      update(p, e.seq, (s) => {
        s.crashed = false
      })
    else if (e.kind === 'pause')
      update(p, e.seq, (s) => {
        s.paused = true
      })
    else if (e.kind === 'resume')
      update(p, e.seq, (s) => {
        s.paused = false
      })
    else if (e.kind === 'request') {
      const type = fieldsOf(e)?.type
      if (typeof type === 'string' && WANTS_LOCK.test(type))
        update(p, e.seq, (s) => {
          if (s.lock === undefined) s.lock = 'waiting'
        })
    } else if (e.kind === 'emit') {
      const f = fieldsOf(e)
      const type = f?.type
      if (type === 'requested' && (f!.node === undefined || String(f!.node) === p))
        update(p, e.seq, (s) => {
          if (s.lock === undefined) s.lock = 'waiting'
        })
      else if (type === 'acquired')
        update(p, e.seq, (s) => {
          s.lock = 'holder'
        })
      else if (type === 'released')
        update(p, e.seq, (s) => {
          s.lock = undefined
        })
      else if (type === 'leader' || type === 'elected' || type === 'coordinator') {
        const who = f!.leader ?? f!.coordinator
        const role = who === undefined || String(who) === p ? 'leader' : 'follower'
        update(p, e.seq, (s) => {
          s.role = role
        })
      } else if (type === 'leader-lost' || type === 'stepped-down')
        update(p, e.seq, (s) => {
          s.role = undefined
        })
    }
  }
  return out
}

const ids = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'number' || typeof x === 'string')
    ? v.map(String)
    : undefined
const isId = (v: unknown) => typeof v === 'number' || typeof v === 'string'

/**
 * The label of a message arrow: its type, with the part of the payload that carries the story
 * when there is one: a Chandy-Misra-Haas probe's (initiator, sender, receiver) (`probe (1,2,3)`),
 * a ring election's list of the ids it went through (`election [2,3,4]`), the leader a
 * coordinator message announces (`coordinator 6 t6`).
 */
export function arrowLabel(type: string, msg: unknown): string {
  const m = unwrap(msg, 'msg')
  if (m === null || typeof m !== 'object') return type
  const f = m as Fields
  if (f.type === 'probe' && isId(f.initiator) && isId(f.sender) && isId(f.receiver))
    return `${type} (${String(f.initiator)},${String(f.sender)},${String(f.receiver)})`
  const list = ids(f.list)
  if (f.type === 'election' && list) return `${type} [${list.join(',')}]`
  if (f.type === 'coordinator' && isId(f.leader)) {
    const term = num(f.term)
    return `${type} ${String(f.leader)}${term === undefined ? '' : ` t${term}`}`
  }
  return type
}
