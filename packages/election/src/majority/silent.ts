/**
 * The leader names the members of its view that acknowledge nothing (`silentAfterMs`): the
 * failure detector a deployment needs to remove a dead member through the agreed membership
 * (`electionToMembership` turns `member-silent` into the membership's `remove`). The leader hears
 * every member's acknowledgements anyway, for its lease: no other traffic.
 */
import type { NodeId } from '@sd/transport'
import type { MajorityCtx } from './protocol.js'
import type { MajorityState } from './state.js'

/** At each heartbeat: report, once, every view member silent for silentAfterMs. */
export function reportSilent(s: MajorityState, ctx: MajorityCtx): void {
  const after = s.settings.silentAfterMs
  if (after === undefined || s.role !== 'leader' || s.ledSince === undefined) return
  const now = ctx.monotonic()
  for (const node of s.members) {
    if (node === s.self || s.silent.has(node)) continue
    // A member counts from when this leader first watched it (the start of the leadership, or
    // its joining the view later), or from its last acknowledgement after that.
    let since = s.watchedSince.get(node)
    if (since === undefined) {
      since = Math.max(now, s.ledSince)
      s.watchedSince.set(node, since)
    }
    const silentMs = now - Math.max(s.acks.get(node) ?? since, since)
    if (silentMs < after) continue
    s.silent.add(node)
    ctx.emit({ type: 'member-silent', node, term: s.leaderTerm, silentMs })
  }
}

/** A reported member acknowledged again: it may be reported anew. */
export function heardFrom(s: MajorityState, node: NodeId): void {
  s.silent.delete(node)
}
