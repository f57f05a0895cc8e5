import { afterEach, describe, expect, it } from 'vitest'
import type { Ctx } from '../protocol.js'
import { runProtocol } from '../runtime/driver.js'
import { SimNetwork } from '../sim/network.js'
import { pollUntil } from '../testing/index.js'
import { createUdpTransport, type UdpTransport } from './index.js'

/** On request 'go' it sends to its peer, emits, and then fails: a step that must leave no trace. */
const halfDone = () => ({
  onMessage() {},
  onRequest(req: string, ctx: Ctx<string, string>) {
    ctx.send(ctx.peers[0]!, `${req}: sent before the failure`)
    ctx.emit(req)
    throw new Error('failed after sending')
  },
})

const open: UdpTransport<unknown>[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close({ graceful: false })))
})

describe('a handler that sends and then throws sends nothing', () => {
  it('in the simulator: no send in the trace, the failure reported with the seed', () => {
    const net = new SimNetwork({ seed: 4 })
    net.launch(['a', 'b'], halfDone)
    net.request('a', 'go')
    expect(() => net.run()).toThrow(expect.objectContaining({ code: 'ERR_SIMULATION' }))
    expect(net.trace.filter((e) => e.type === 'send' || e.type === 'emit')).toEqual([])
  })

  it('over UDP: the peer gets the message sent after the failure, never the one before', async () => {
    const a = await createUdpTransport<unknown>({ id: 'a' })
    const b = await createUdpTransport<unknown>({ id: 'b' })
    open.push(a, b)
    a.setPeer('b', `127.0.0.1:${b.address.port}`)
    b.setPeer('a', `127.0.0.1:${a.address.port}`)
    const got: unknown[] = []
    b.onMessage((_from, msg) => got.push(msg))
    const errors: unknown[] = []
    const events: string[] = []
    const handle = runProtocol(halfDone(), {
      transport: a as UdpTransport<string>,
      members: ['a', 'b'],
      onError: (e) => errors.push(e),
      onEvent: (e) => events.push(e),
    })
    handle.request('go')
    expect(errors).toHaveLength(1)
    expect(handle.stopped).toBe(true)
    // The link delivers in order: once the marker sent afterwards arrived, anything sent in the
    // failed step would have arrived before it.
    a.send('b', 'marker')
    await pollUntil(() => got.includes('marker'))
    expect(got).toEqual(['marker'])
    expect(events).toEqual([])
  })
})
