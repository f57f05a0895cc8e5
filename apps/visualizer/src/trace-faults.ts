import type { DownBand, EventKind, ProcessId } from './model.js'
import { addProcess, type Build, event, item } from './trace-build.js'
import { type Entry, NODE_KINDS, nodeLabel, shortText } from './trace-entries.js'

/**
 * The entries of an sd trace that are not messages: partitions and heals, loss, marks, and the
 * node events (timers, requests, crashes, pauses...), with the bands a fault opens and closes.
 */

export function readPartition(b: Build, index: number, e: Entry): void {
  const groups = Array.isArray(e.groups)
    ? e.groups.map((g: unknown) =>
        Array.isArray(g) ? g.map((p: unknown) => addProcess(b, p)) : [],
      )
    : []
  // A new partition replaces the one in force.
  if (b.openPartition) {
    b.openPartition.to = e.t
    b.openPartition.toSeq = b.timeline.length
  }
  b.openPartition = { groups, from: e.t, fromSeq: item(b, e.t), id: index }
  b.partitions.push(b.openPartition)
}

export function readHeal(b: Build, index: number, e: Entry): void {
  const seq = item(b, e.t)
  if (b.openPartition) {
    b.openPartition.to = e.t
    b.openPartition.toSeq = seq
    b.openPartition.healId = index
    b.openPartition = undefined
  }
}

export function readLoss(b: Build, index: number, e: Entry): void {
  // `percent` of the packets dropped from now on; 0 ends it, another percent replaces it.
  const percent = typeof e.percent === 'number' && Number.isFinite(e.percent) ? e.percent : 0
  const seq = item(b, e.t)
  if (b.openLoss) {
    b.openLoss.to = e.t
    b.openLoss.toSeq = seq
    b.openLoss.endId = index
    b.openLoss = undefined
  }
  if (percent > 0) {
    b.openLoss = { percent, from: e.t, fromSeq: seq, id: index }
    b.losses.push(b.openLoss)
  }
}

export function readMark(b: Build, index: number, e: Entry): void {
  const label = typeof e.label === 'string' ? e.label : shortText(e.label ?? 'mark')
  b.marks.push({ id: index, t: e.t, seq: item(b, e.t), label })
}

/** A node event (see `NODE_KINDS`); a crash, restart, pause or resume opens or closes a band. */
export function readNodeEvent(b: Build, index: number, e: Entry): void {
  if (e.node === undefined || !NODE_KINDS.has(e.type)) {
    b.skipped++
    return
  }
  const node = addProcess(b, e.node)
  const kind = e.type as EventKind
  const ev = event(b, index, e, node, kind, nodeLabel(kind, e))
  const close = (open: Map<ProcessId, DownBand>) => {
    const band = open.get(node)
    if (band) {
      band.to = e.t
      band.toSeq = ev.seq
      open.delete(node)
    }
  }
  const begin = (open: Map<ProcessId, DownBand>, list: DownBand[]) => {
    if (open.has(node)) return
    const band: DownBand = { process: node, from: e.t, fromSeq: ev.seq }
    open.set(node, band)
    list.push(band)
  }
  if (kind === 'crash') {
    // A crash ends a pause: the process is down, not paused, until it restarts.
    close(b.openPause)
    begin(b.openDown, b.down)
  } else if (kind === 'restart') close(b.openDown)
  else if (kind === 'pause') begin(b.openPause, b.paused)
  else if (kind === 'resume') close(b.openPause)
}
