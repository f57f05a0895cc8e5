/**
 * The deployment example's glue (cluster-node.ts), a small pure protocol composed beside the
 * election, the agreed membership and the lock:
 * - every node says `alive` to every member of its view every `everyMs`;
 * - the elected leader asks the membership to remove a member it has not heard for `deadAfterMs`
 *   (`dead` event; the membership repeats the removal until a view shows it done);
 * - the leader's `alive` names its term, so a member the election does not count yet (a joiner:
 *   the majority election still counts over its static member list) learns whom to ask for the
 *   lock (`leader-heard`, wired to the lock's `coordinator` request at joiners only).
 */
import {
  arrayOf,
  type Ctx,
  intIn,
  isNodeId,
  messageParser,
  type NodeId,
  optional,
  type Protocol,
} from '@sd/transport'

export type PresenceMessage = { type: 'alive'; leading?: number }

export type PresenceRequest =
  /** The membership installed a view: these are the members to watch. */
  | { type: 'view'; members: NodeId[] }
  /** From the election: who leads now (this node, or another). */
  | { type: 'leader'; leader: NodeId; term: number }
  /** From the election: this node no longer trusts (or holds) a leadership. */
  | { type: 'leader-lost' }

export type PresenceEvent =
  | { type: 'dead'; id: NodeId }
  | { type: 'leader-heard'; leader: NodeId; term: number }

export interface PresenceOptions {
  everyMs?: number
  deadAfterMs?: number
}

const parse = messageParser<PresenceMessage>({
  alive: { leading: optional(intIn(1, Number.MAX_SAFE_INTEGER)) },
})
const isMembers = arrayOf(isNodeId, { max: 10_000 })

export function presence(options: PresenceOptions = {}) {
  const everyMs = options.everyMs ?? 100
  const deadAfterMs = options.deadAfterMs ?? 1500
  return (self: NodeId): Protocol<PresenceMessage, PresenceRequest, PresenceEvent> => {
    let members: NodeId[] = []
    let leading: number | undefined
    let heardTerm = 0
    const lastHeard = new Map<NodeId, number>()
    const reported = new Set<NodeId>()
    type C = Ctx<PresenceMessage, PresenceEvent>

    const tick = (ctx: C) => {
      const msg: PresenceMessage =
        leading === undefined ? { type: 'alive' } : { type: 'alive', leading }
      for (const id of members) if (id !== self) ctx.send(id, msg)
      if (leading !== undefined) {
        const now = ctx.monotonic()
        for (const id of members) {
          if (id === self || reported.has(id)) continue
          if (now - (lastHeard.get(id) ?? now) > deadAfterMs) {
            reported.add(id)
            ctx.emit({ type: 'dead', id })
          }
        }
      }
      ctx.setTimer('tick', everyMs)
    }

    return {
      start: (ctx) => ctx.setTimer('tick', everyMs),
      onTimer: (key, ctx) => {
        if (key === 'tick') tick(ctx)
      },
      onMessage: (from, raw, ctx) => {
        const msg = parse(raw)
        if (typeof msg === 'string') return
        lastHeard.set(from, ctx.monotonic())
        // Only a newer term: one leader per term, and a late `alive` of an old one changes nothing.
        if (msg.leading !== undefined && msg.leading > heardTerm) {
          heardTerm = msg.leading
          ctx.emit({ type: 'leader-heard', leader: from, term: msg.leading })
        }
      },
      onRequest: (req, ctx) => {
        if (req.type === 'view' && isMembers(req.members)) {
          const now = ctx.monotonic()
          // A new member gets a full `deadAfterMs` from now before it can be reported.
          for (const id of req.members) if (!members.includes(id)) lastHeard.set(id, now)
          for (const id of members) {
            if (req.members.includes(id)) continue
            lastHeard.delete(id)
            reported.delete(id)
          }
          members = [...req.members]
        } else if (req.type === 'leader') {
          leading = req.leader === self ? req.term : undefined
          // A leader starts counting silence afresh: what it heard as a follower may be old.
          if (leading !== undefined) {
            const now = ctx.monotonic()
            for (const id of members)
              lastHeard.set(id, Math.max(lastHeard.get(id) ?? now, now - everyMs))
          }
        } else if (req.type === 'leader-lost') {
          leading = undefined
        }
      },
    }
  }
}
