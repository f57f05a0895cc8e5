import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  type ComposedEvent,
  type ComposedMessage,
  type ComposedRequest,
  type Ctx,
  compose,
  type NodeId,
  type Protocol,
  runProtocol,
  SimNetwork,
} from '../src/index.js'

// Compile-time checks (the package typecheck covers test/): a wrong line here fails `tsc`.

type ElectionMsg = { type: 'vote'; term: number }
type ElectionEv = { type: 'leader'; leader: NodeId; term: number }
const election = (): Protocol<ElectionMsg, { type: 'campaign' }, ElectionEv> => ({
  onMessage() {},
  onRequest(_req, ctx) {
    ctx.emit({ type: 'leader', leader: ctx.self, term: 1 })
  },
})

type LockReq = { type: 'acquire' } | { type: 'coordinator'; id: NodeId; term: number }
class Lock implements Protocol<{ type: 'grant'; token: number }, LockReq, { type: 'acquired' }> {
  onMessage() {}
  onRequest(_req: LockReq, _ctx: Ctx<{ type: 'grant'; token: number }, { type: 'acquired' }>) {}
}

describe('compose types', () => {
  it('derives the envelope types from the children', () => {
    const node = compose(
      { election: election(), lock: new Lock() },
      {
        wiring: [
          {
            from: 'election',
            to: 'lock',
            // `ev` is the election's event; the result must be a lock request.
            map: (ev) =>
              ev.type === 'leader'
                ? { type: 'coordinator', id: ev.leader, term: ev.term }
                : undefined,
          },
        ],
      },
    )
    type Children = { election: ReturnType<typeof election>; lock: Lock }
    expectTypeOf(node).toEqualTypeOf<
      Protocol<ComposedMessage<Children>, ComposedRequest<Children>, ComposedEvent<Children>>
    >()
    expectTypeOf<ComposedMessage<Children>>().toEqualTypeOf<
      | { proto: 'election'; msg: ElectionMsg }
      | { proto: 'lock'; msg: { type: 'grant'; token: number } }
    >()
    expectTypeOf<Extract<ComposedEvent<Children>, { proto: 'lock' }>>().toEqualTypeOf<{
      proto: 'lock'
      event: { type: 'acquired' }
    }>()

    const net = new SimNetwork()
    const group = net.launch([1, 2], () => compose({ election: election(), lock: new Lock() }))
    group.request(1, { proto: 'lock', req: { type: 'acquire' } })
    group.request(2, { proto: 'election', req: { type: 'campaign' } })
    // @ts-expect-error a lock request addressed to the election
    group.request(1, { proto: 'election', req: { type: 'acquire' } })
    // @ts-expect-error no child of that name
    group.request(1, { proto: 'mutex', req: { type: 'acquire' } })
    const handle = runProtocol(compose({ lock: new Lock() }), {
      transport: net.addNode<ComposedMessage<{ lock: Lock }>>(3),
      members: [1, 2, 3],
    })
    handle.request({ proto: 'lock', req: { type: 'coordinator', id: 1, term: 2 } })
    // @ts-expect-error the lock has no `release` request
    handle.request({ proto: 'lock', req: { type: 'release' } })
  })

  it('refuses wiring whose map does not produce a request of its target', () => {
    compose(
      { election: election(), lock: new Lock() },
      {
        wiring: [
          // @ts-expect-error `campaign` is an election request, not a lock request
          { from: 'election', to: 'lock', map: () => ({ type: 'campaign' }) },
        ],
      },
    )
    // JavaScript callers get the same answer at run time.
    expect(() =>
      compose(
        { election: election(), lock: new Lock() },
        {
          // @ts-expect-error no child named `mutex`
          wiring: [{ from: 'election', to: 'mutex', map: () => undefined }],
        },
      ),
    ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }))
  })
})
