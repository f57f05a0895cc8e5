import { messageType } from '@sd/transport'
import type { VizMessage } from './model.js'
import { addProcess, type Build, event, id, item } from './trace-build.js'
import { type Entry, findTraceClocks, protoOf } from './trace-entries.js'

/**
 * The message entries of an sd trace (`send`, `deliver`, `drop`, `duplicate`) and the arrows they
 * make: one per delivery or drop, and one per copy still in flight at the end.
 */

export function readSend(b: Build, index: number, e: Entry): void {
  const from = addProcess(b, e.from)
  const to = addProcess(b, e.to)
  const mid = id(e.id)
  const type = messageType(e.msg)
  b.types.add(type)
  // The link's retransmission of an earlier message (the cluster's links write `resendOf`).
  const resendOf =
    typeof e.resendOf === 'number' || typeof e.resendOf === 'string' ? id(e.resendOf) : undefined
  const label = `→${to} #${mid} ${type}${resendOf === undefined ? '' : ` ↻#${resendOf}`}`
  const send = event(b, index, e, from, 'send', label, {
    messageId: mid,
    messageType: type,
    peer: to,
  })
  b.sends.set(mid, { send, copies: 1, msg: e.msg, proto: protoOf(e), resendOf })
}

export function readDeliver(b: Build, index: number, e: Entry): void {
  const from = addProcess(b, e.from)
  const to = addProcess(b, e.to)
  const mid = id(e.id)
  const sent = b.sends.get(mid)
  const type = sent ? messageType(sent.msg) : 'unknown'
  // A recorder may put `proto` on the send only (the cluster app does): the delivery's is the send's.
  const msgProto = protoOf(e) ?? sent?.proto
  const deliver = event(
    b,
    index,
    e,
    to,
    'deliver',
    `←${from} #${mid} ${type}`,
    { messageId: mid, messageType: type, peer: from, proto: msgProto },
    sent?.send.seq,
  )
  if (sent) deliver.traceClocks = findTraceClocks(sent.msg, 'msg')
  b.outcomes.push({
    id: mid,
    copy: 0,
    from,
    to,
    send: sent?.send,
    deliver,
    outcome: 'deliver',
    duplicated: false,
    type,
    proto: msgProto,
    seq: deliver.seq,
  })
}

export function readDrop(b: Build, index: number, e: Entry): void {
  const proto = protoOf(e)
  const from = addProcess(b, e.from)
  const to = addProcess(b, e.to)
  const mid = id(e.id)
  const sent = b.sends.get(mid)
  const reason = String(e.reason ?? 'dropped')
  // Dropped on arrival (the receiver was down or closed): the cross sits on the receiver's
  // line. Dropped when sent (loss, partition, sender down): between the lines.
  const atReceiver = reason === 'receiver-crashed' || reason === 'receiver-closed'
  const seq = item(b, e.t, atReceiver ? to : from, sent?.send.seq)
  b.outcomes.push({
    id: mid,
    copy: 0,
    from,
    to,
    send: sent?.send,
    outcome: 'drop',
    drop: { reason, t: e.t, seq, id: index, atReceiver },
    duplicated: false,
    type: sent ? messageType(sent.msg) : 'unknown',
    proto: proto ?? sent?.proto,
    seq,
  })
  if (proto) b.protos.add(proto)
}

export function readDuplicate(b: Build, index: number, e: Entry): void {
  const from = addProcess(b, e.from)
  const to = addProcess(b, e.to)
  const mid = id(e.id)
  const sent = b.sends.get(mid)
  if (sent) sent.copies++
  b.duplicates.push({ id: index, messageId: mid, from, to, t: e.t, seq: item(b, e.t, from) })
}

/** The arrows, in seq order: one per delivery or drop; a copy never accounted for is in flight. */
export function arrowsOf(b: Build): VizMessage[] {
  const messages: VizMessage[] = []
  const seen = new Map<string, number>()
  for (const m of b.outcomes) {
    const copy = seen.get(m.id) ?? 0
    seen.set(m.id, copy + 1)
    const sent = b.sends.get(m.id)
    messages.push({
      ...m,
      copy,
      duplicated: (sent?.copies ?? 1) > 1,
      ...(sent?.resendOf === undefined ? {} : { resendOf: sent.resendOf }),
    })
  }
  for (const [mid, sent] of b.sends) {
    for (let copy = seen.get(mid) ?? 0; copy < sent.copies; copy++) {
      const { send } = sent
      messages.push({
        id: mid,
        copy,
        from: send.process,
        to: send.peer!,
        send,
        outcome: 'in-flight',
        duplicated: sent.copies > 1,
        ...(sent.resendOf === undefined ? {} : { resendOf: sent.resendOf }),
        type: send.messageType!,
        proto: sent.proto,
        seq: send.seq,
      })
    }
  }
  return messages.sort((a, b) => a.seq - b.seq || a.copy - b.copy)
}
