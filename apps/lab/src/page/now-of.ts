/**
 * Where each prefix of the line's trace ends on its diagram's timeline: a step shows the items of
 * the trace entries it has, and hides those after.
 */
import type { Diagram } from '@sd/visualizer/src/model.js'

/** Every drawn item's trace index and seq; a prefix of `length` entries shows the seqs its entries made. */
export function nowOfEntries(diagram: Diagram, length: number): Int32Array {
  const seqOf = new Int32Array(length + 1).fill(-1)
  const note = (id: number | undefined, seq: number | undefined) => {
    if (id !== undefined && seq !== undefined && id < length)
      seqOf[id + 1] = Math.max(seqOf[id + 1]!, seq)
  }
  for (const e of diagram.events) note(e.id, e.seq)
  for (const m of diagram.messages) if (m.drop) note(m.drop.id, m.drop.seq)
  for (const d of diagram.duplicates) note(d.id, d.seq)
  for (const p of diagram.partitions) {
    note(p.id, p.fromSeq)
    note(p.healId, p.toSeq)
  }
  for (const l of diagram.losses) {
    note(l.id, l.fromSeq)
    note(l.endId, l.toSeq)
  }
  for (const m of diagram.marks) note(m.id, m.seq)
  for (let k = 1; k < seqOf.length; k++) seqOf[k] = Math.max(seqOf[k]!, seqOf[k - 1]!)
  return seqOf
}
