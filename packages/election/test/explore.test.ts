import { isNodeId, type NodeId } from '@sd/transport'
import { explore } from '@sd/transport/explore'
import { describe, expect, it } from 'vitest'
import { changRoberts } from '../src/chang-roberts/index.js'
import { eventFields } from '../src/event-fields.js'

describe('Chang-Roberts in every ordering (exhaustive, FIFO links as the ring assumes)', () => {
  it('n = 3, two initiators at once: one leader per term, the largest id, known to all', () => {
    const ids: NodeId[] = [1, 2, 3]
    const result = explore(
      {
        setup(net) {
          net.launch(ids, changRoberts({ ring: [1, 3, 2], heartbeat: { intervalMs: 60_000 } }))
          net.request(1, { type: 'start' })
          net.request(2, { type: 'start' })
        },
        invariant({ events, net }) {
          const leaderOf = new Map<number, NodeId>()
          for (const { event } of events) {
            const e = eventFields(event)
            if (e?.type !== 'leader' || typeof e.term !== 'number' || !isNodeId(e.leader)) continue
            const known = leaderOf.get(e.term)
            if (known !== undefined && known !== e.leader)
              return `two leaders in term ${e.term}: ${String(known)} and ${String(e.leader)}`
            leaderOf.set(e.term, e.leader)
          }
          // When only timers beyond the bound are left, every member follows 3.
          const done = net.choices().every((c) => c.kind === 'timer' && c.t > 400)
          if (done)
            for (const id of ids) {
              const mine = events.filter(
                (x) => x.node === id && eventFields(x.event)?.type === 'leader',
              )
              if (eventFields(mine.at(-1)?.event)?.leader !== 3)
                return `${String(id)} does not follow 3`
            }
          return undefined
        },
      },
      // Bound: virtual time stops before the first retry timeout (450 ms) and the first heartbeat,
      // so every ordering of the messages is explored, with no timeout racing them.
      { until: 400 },
    )
    expect(result.counterexample).toBeUndefined()
    expect(result.exhausted).toBe(true)
    expect(result.cutByDepth).toBe(0)
    // The protocol has a snapshot: explored statefully, every state once.
    expect(result.mode).toBe('stateful')
    expect(result.states).toBeGreaterThan(10)
  })
})
