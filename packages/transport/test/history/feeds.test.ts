import type { Ctx, NodeId, Protocol } from '@sd/transport'
import {
  checkHistory,
  type EmittedHistoryEvent,
  historyFromEvents,
  historyFromTrace,
  historyToEvents,
  type RegisterInput,
  registerModel,
} from '@sd/transport/history'
import { runInSim } from '@sd/transport/testing'
import { describe, expect, it } from 'vitest'

type Input = RegisterInput<number | null>
type Msg =
  | { type: 'op'; id: number; input: Input }
  | { type: 'res'; id: number; value: number | null }
type Ev = EmittedHistoryEvent<Input, number | null>

/**
 * One register on node `s`; the other nodes are clients that emit each operation's invocation and
 * completion. A `stale` server answers reads with the value before the last write.
 */
function registerService(stale: boolean) {
  return (self: NodeId): Protocol<Msg, Input, Ev> => {
    let value: number | null = null
    let before: number | null = null
    let nextId = 0
    return {
      onRequest(input, ctx: Ctx<Msg, Ev>) {
        const id = ++nextId
        ctx.emit({ type: 'invoke', id, input })
        ctx.send('s', { type: 'op', id, input })
      },
      onMessage(from, msg, ctx) {
        if (msg.type === 'res') return ctx.emit({ type: 'complete', id: msg.id, output: msg.value })
        if (self !== 's') return
        if (msg.input.f === 'write') {
          before = value
          value = msg.input.value
        }
        ctx.send(from, { type: 'res', id: msg.id, value: stale ? before : value })
      },
    }
  }
}

function run(stale: boolean) {
  return runInSim(['s', 'a', 'b'], registerService(stale), {
    seed: 7,
    net: { latency: 5 },
    plan(_net, group) {
      group.request('a', { f: 'write', value: 1 }, 0)
      group.request('b', { f: 'read' }, 30)
      group.request('a', { f: 'write', value: 2 }, 60)
      group.request('b', { f: 'read' }, 90)
    },
  })
}

describe('histories from a simulator run', () => {
  it('pairs the emitted invocations and completions, by node', () => {
    const history = historyFromTrace(run(false).events)
    expect(history.map((o) => [o.client, o.input.f, o.output])).toEqual([
      ['a', 'write', 1],
      ['b', 'read', 1],
      ['a', 'write', 2],
      ['b', 'read', 2],
    ])
    expect(history.every((o) => o.completedAt! > o.invokedAt)).toBe(true)
    expect(checkHistory(registerModel(), history).verdict).toBe('linearizable')
  })

  it('catches the stale server', () => {
    const result = checkHistory(registerModel(), historyFromTrace(run(true).events))
    expect(result.verdict).toBe('not-linearizable')
  })

  it('takes a mapping of any event shape', () => {
    const events = run(false).events
    const writesOnly = historyFromTrace(events, (e) =>
      e.event.type === 'invoke' && e.event.input.f === 'write'
        ? { type: 'invoke', id: e.event.id, client: e.node, input: e.event.input, t: e.t }
        : undefined,
    )
    expect(writesOnly.map((o) => o.completedAt)).toEqual([undefined, undefined])
  })
})

describe('call and return events', () => {
  it('round-trips a history, pending operations and `info` included', () => {
    const events = [
      { type: 'invoke', id: 1, client: 'a', input: 'x', t: 0 },
      { type: 'invoke', id: 2, client: 'b', input: 'y', t: 1 },
      { type: 'complete', id: 1, output: 'X', t: 2 },
      { type: 'info', id: 2, t: 3 },
    ] as const
    const history = historyFromEvents(events)
    expect(history).toEqual([
      { id: 1, client: 'a', input: 'x', invokedAt: 0, completedAt: 2, output: 'X' },
      { id: 2, client: 'b', input: 'y', invokedAt: 1 },
    ])
    expect(historyToEvents(history)).toEqual(events.slice(0, 3))
  })

  it('refuses a completion without invocation, and a second one', () => {
    expect(() => historyFromEvents([{ type: 'complete', id: 1, output: 0, t: 0 }])).toThrow(
      /ends before it begins/,
    )
    const twice = [
      { type: 'invoke', id: 1, client: 'a', input: 0, t: 0 },
      { type: 'complete', id: 1, output: 0, t: 1 },
      { type: 'complete', id: 1, output: 0, t: 2 },
    ] as const
    expect(() => historyFromEvents(twice)).toThrow(/completes twice/)
  })
})
