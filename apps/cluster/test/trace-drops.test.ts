import type { TraceEvent } from '@sd/transport'
import { describe, expect, it } from 'vitest'
import { TraceRecorder } from '../src/trace.js'
import { FaultTimeline, median } from '../src/trace-drops.js'

/** A recorder of three nodes started at t=0, origin 0, a loss threshold of 100 ms. */
function recorder(): TraceRecorder {
  seq = 0
  const r = new TraceRecorder(0, 1, 100)
  for (const n of ['n1', 'n2', 'n3']) r.boot(0, n, false)
  return r
}

const msg = (type: string) => ({ proto: 'election', msg: { type } })
/** Message n is `m<n>`, with id n, in each test. */
let seq = 0
/** A message from -> to sent at `t`, delivered at `at` (or not). */
function message(r: TraceRecorder, t: number, from: string, to: string, at?: number): void {
  seq++
  r.send(t, from, to, seq, msg(`m${seq}`))
  if (at !== undefined) r.deliver(at, from, to, seq)
}

const messagesOf = (events: readonly TraceEvent[]) =>
  events.filter((e) => e.type === 'send' || e.type === 'deliver' || e.type === 'drop')

/** Three on-time messages of 2 ms (the run's median one-way latency). */
function onTime(r: TraceRecorder, from = 10): void {
  message(r, from, 'n1', 'n2', from + 2)
  message(r, from + 1, 'n2', 'n3', from + 3)
  message(r, from + 2, 'n3', 'n1', from + 4)
}

describe('drops estimated from the faults of a real run', () => {
  it('leaves an on-time message across no fault as it was: its send and its delivery', () => {
    const r = recorder()
    message(r, 10, 'n1', 'n2', 12)
    const events = messagesOf(r.document(['n1', 'n2', 'n3']).events)
    expect(events).toEqual([
      { t: 10, type: 'send', id: 1, from: 'n1', to: 'n2', msg: msg('m1'), proto: 'election' },
      { t: 12, type: 'deliver', id: 1, from: 'n1', to: 'n2', sentAt: 10, proto: 'election' },
    ])
  })

  it('drops a message sent across a partition, and its later delivery is a resend after the heal', () => {
    const r = recorder()
    onTime(r)
    r.partition(100, [['n1'], ['n2', 'n3']])
    message(r, 200, 'n1', 'n2', 2650) // the link's retransmission got through after the heal
    message(r, 210, 'n2', 'n3', 212) // same side: untouched
    r.heal(2600)
    const events = r.document(['n1', 'n2', 'n3']).events
    const cut = messagesOf(events).filter((e) => e.t >= 200 && e.t !== 210 && e.t !== 212)
    const id = 4
    expect(cut).toEqual([
      { t: 200, type: 'send', id, from: 'n1', to: 'n2', msg: msg('m4'), proto: 'election' },
      { t: 200, type: 'drop', id, from: 'n1', to: 'n2', reason: 'partition', proto: 'election' },
      {
        t: 2648,
        type: 'send',
        id: 6,
        from: 'n1',
        to: 'n2',
        msg: msg('m4'),
        proto: 'election',
        resendOf: id,
      },
      { t: 2650, type: 'deliver', id: 6, from: 'n1', to: 'n2', sentAt: 2648, proto: 'election' },
    ])
    expect(events.filter((e) => e.type === 'deliver' && e.id === id)).toEqual([])
    expect(events.find((e) => e.type === 'deliver' && e.id === 5)).toMatchObject({ t: 212 })
  })

  it('places a resend no earlier than the end of the cut', () => {
    const r = recorder()
    onTime(r)
    r.partition(100, [['n1'], ['n2', 'n3']])
    message(r, 200, 'n1', 'n2', 2601)
    r.heal(2600)
    const resend = r
      .document(['n1', 'n2', 'n3'])
      .events.find((e) => e.type === 'send' && e.resendOf)
    expect(resend).toMatchObject({ t: 2600, resendOf: 4 })
  })

  it('drops a message sent to a dead receiver, with no delivery when none came', () => {
    const r = recorder()
    onTime(r)
    r.crash(300, 'n3')
    message(r, 400, 'n1', 'n3')
    message(r, 410, 'n1', 'n2', 412)
    r.boot(3000, 'n3', true)
    message(r, 3100, 'n1', 'n3', 3102)
    const events = messagesOf(r.document(['n1', 'n2', 'n3']).events)
    expect(events.filter((e) => e.type === 'drop')).toEqual([
      {
        t: 400,
        type: 'drop',
        id: 4,
        from: 'n1',
        to: 'n3',
        reason: 'receiver-crashed',
        proto: 'election',
      },
    ])
    expect(events.filter((e) => e.type === 'send')).toHaveLength(6)
    expect(events.filter((e) => e.type === 'deliver').map((e) => e.id)).toEqual([1, 2, 3, 5, 6])
  })

  it('under loss, drops only what came later than the threshold, or never', () => {
    const r = recorder()
    onTime(r)
    r.loss(1000, 10)
    message(r, 1100, 'n1', 'n2', 1130) // retransmitted soon: not told from a slow delivery
    message(r, 1200, 'n1', 'n2', 1450) // beyond 100 ms: its first transmission was lost
    message(r, 1300, 'n2', 'n1') // never came
    r.loss(2000, 0)
    message(r, 2100, 'n1', 'n2', 2400) // late, but sent with the loss over
    message(r, 5000, 'n3', 'n1', 5002)
    const events = r.document(['n1', 'n2', 'n3']).events
    expect(events.filter((e) => e.type === 'loss')).toEqual([
      { t: 1000, type: 'loss', percent: 10 },
      { t: 2000, type: 'loss', percent: 0 },
    ])
    expect(
      events.flatMap((e) => (e.type === 'drop' ? [`${e.id} ${e.reason} at ${e.t}`] : [])),
    ).toEqual(['5 loss at 1200', '6 loss at 1300'])
    const resend = events.find((e) => e.type === 'send' && e.resendOf !== undefined)
    expect(resend).toMatchObject({ t: 1448, resendOf: 5 })
    expect(events.find((e) => e.type === 'deliver' && e.id === 4)).toMatchObject({ t: 1130 })
    expect(events.find((e) => e.type === 'deliver' && e.id === 7)).toMatchObject({ t: 2400 })
  })

  it('takes a message late across a pause of its receiver for a late delivery, not a drop', () => {
    const r = recorder()
    onTime(r)
    r.loss(1000, 10)
    r.fault({ t: 1050, type: 'pause', node: 'n2' })
    message(r, 1100, 'n1', 'n2', 3600) // the kernel kept it; n2 handled it at SIGCONT
    r.fault({ t: 3590, type: 'resume', node: 'n2', backlog: 0 })
    message(r, 3700, 'n1', 'n3', 3702)
    const events = r.document(['n1', 'n2', 'n3']).events
    expect(events.filter((e) => e.type === 'drop' || (e.type === 'send' && e.resendOf))).toEqual([])
    expect(events.find((e) => e.type === 'deliver' && e.id === 4)).toMatchObject({
      t: 3600,
      sentAt: 1100,
    })
  })

  it('reads who could reach whom from the faults', () => {
    const faults = new FaultTimeline([
      { t: 0, type: 'partition', groups: [['n1'], ['n2']] },
      { t: 5, type: 'heal' },
      { t: 6, type: 'crash', node: 'n2' },
      { t: 9, type: 'restart', node: 'n2' },
      { t: 10, type: 'pause', node: 'n1' },
      { t: 12, type: 'resume', node: 'n1', backlog: 0 },
    ])
    expect(faults.cutAt('n1', 'n2', 1)).toEqual({ reason: 'partition', until: 5 })
    expect(faults.cutAt('n1', 'n2', 5)).toBeUndefined()
    expect(faults.cutAt('n1', 'n2', 7)).toEqual({ reason: 'receiver-crashed', until: 9 })
    expect(faults.cutAt('n2', 'n1', 7)).toBeUndefined()
    expect(faults.pausedWithin('n1', 0, 9)).toBe(false)
    expect(faults.pausedWithin('n1', 11, 11.5)).toBe(true)
    expect(faults.pausedWithin('n1', 5, 10)).toBe(true)
    expect(faults.pausedWithin('n1', 12.5, 20)).toBe(false)
    expect(median([3, 1, 2])).toBe(2)
    expect(median([])).toBe(0)
  })
})
