import { describe, expect, it } from 'vitest'
import { TraceRecorder } from '../src/trace.js'

describe('the trace of a real run', () => {
  it('pairs each delivery with its send whatever order the lines came in, in sd-trace form', () => {
    const origin = 1_000_000
    const r = new TraceRecorder(origin, 42)
    r.boot(origin + 1, 'n1', false)
    r.boot(origin + 2, 'n2', false)
    const msg = { proto: 'election', msg: { type: 'heartbeat', term: 1, at: 5 } }
    // The delivery's line (from n2's pipe) came before the send's (from n1's pipe).
    r.deliver(origin + 12, 'n1', 'n2', 7001)
    r.send(origin + 10, 'n1', 'n2', 7001, msg)
    r.send(origin + 11, 'n1', 'n2', 7002, { proto: 'lock', msg: { type: 'request' } })
    r.emit(origin + 13, 'n2', 'election', { type: 'leader', leader: 'n1', term: 1 })
    r.crash(origin + 20, 'n1')
    r.partition(origin + 21, [['n1'], ['n2']])
    r.heal(origin + 22)
    r.boot(origin + 30, 'n1', true)
    expect(r.document(['n1', 'n2'])).toEqual({
      format: 'sd-trace',
      version: 1,
      seed: 42,
      nodes: ['n1', 'n2'],
      events: [
        { t: 1, type: 'start', node: 'n1' },
        { t: 2, type: 'start', node: 'n2' },
        { t: 10, type: 'send', id: 1, from: 'n1', to: 'n2', msg, proto: 'election' },
        {
          t: 11,
          type: 'send',
          id: 2,
          from: 'n1',
          to: 'n2',
          msg: { proto: 'lock', msg: { type: 'request' } },
          proto: 'lock',
        },
        { t: 12, type: 'deliver', id: 1, from: 'n1', to: 'n2', sentAt: 10, proto: 'election' },
        {
          t: 13,
          type: 'emit',
          node: 'n2',
          event: { proto: 'election', event: { type: 'leader', leader: 'n1', term: 1 } },
          proto: 'election',
        },
        { t: 20, type: 'crash', node: 'n1' },
        { t: 21, type: 'partition', groups: [['n1'], ['n2']] },
        { t: 22, type: 'heal' },
        { t: 30, type: 'restart', node: 'n1' },
      ],
    })
  })
})
