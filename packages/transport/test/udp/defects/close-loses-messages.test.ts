// Defect 7: close() dropped what was queued, silently. After the fix a graceful close (the default)
// waits for acknowledgements, a hard close reports what it abandoned, and both say so.
import { describe, expect, it } from 'vitest'
import {
  bounded,
  closeEverythingAfterEach,
  inbox,
  LOOPBACK,
  node,
  pair,
  pollUntil,
  signalsOf,
  unreachable,
} from './support.js'

closeEverythingAfterEach()

const TEN = [...Array(10).keys()]

describe('defect 7: closing with messages still queued', () => {
  it('a graceful close (the default) delivers all 10 queued messages and reports none abandoned', async () => {
    const { a, b } = await pair()
    const atB = inbox(b)
    for (const i of TEN) a.send('b', i)
    // Graceful by default; the timeout is raised only so a loaded machine cannot turn this into a loss.
    const report = await bounded(a.close({ timeoutMs: 30_000 }), 60_000, 'graceful close')
    // Acknowledged means delivered: nothing left to wait for once close resolves.
    expect(atB, 'messages the peer received before the graceful close resolved').toEqual(TEN)
    expect(report.graceful, 'report.graceful').toBe(true)
    expect(report.abandonedMessages, 'report.abandonedMessages').toBe(0)
    expect(report.abandoned.reduce((n, e) => n + e.messages, 0)).toBe(0)
    expect(a.stats.messagesAbandoned).toBe(0)
  })

  it('close({ graceful: false }) reports the 10 messages it abandoned, per peer and in stats', async () => {
    const { a, b } = await pair()
    // Warm the link up so the 10 are real data datagrams in flight, not waiting for a handshake.
    const atB = inbox(b)
    a.send('b', 'warm-up')
    await pollUntil(() => atB.length === 1, 'the warm-up message', 30_000)
    // Delivered is not yet acknowledged: wait until a has b's acknowledgement too, or a busy
    // machine makes the report (rightly) count the warm-up as an 11th unacknowledged message.
    await pollUntil(() => a.linkInfo('b')?.queuedMessages === 0, 'the warm-up acknowledged', 30_000)
    for (const i of TEN) a.send('b', i)
    // Same tick as the sends: no acknowledgement can have arrived yet.
    const report = await bounded(a.close({ graceful: false }), 60_000, 'hard close')
    expect(report.abandonedMessages, 'report.abandonedMessages').toBe(10)
    expect(report.graceful, 'report.graceful').toBe(false)
    expect(report.abandoned.find((e) => e.peer === 'b')?.messages, 'abandoned toward b').toBe(10)
    expect(a.stats.messagesAbandoned, 'stats.messagesAbandoned').toBe(10)
  })

  it('a graceful close toward a peer that is gone gives up after timeoutMs and reports the messages abandoned', async () => {
    const gone = await node({ id: 'b' })
    const port = gone.address.port
    await gone.close({ graceful: false })
    const a = await node({ id: 'a', peers: { b: `${LOOPBACK}:${port}` } })
    for (const i of TEN) a.send('b', i)
    // The bound only keeps a broken close from hanging the suite; it is far above timeoutMs.
    const report = await bounded(a.close({ timeoutMs: 300 }), 30_000, 'graceful close')
    expect(report.abandonedMessages, 'report.abandonedMessages').toBe(10)
    expect(report.abandoned.find((e) => e.peer === 'b')?.messages, 'abandoned toward b').toBe(10)
    expect(a.stats.messagesAbandoned, 'stats.messagesAbandoned').toBe(10)
  })

  it('a graceful close acknowledges the answer that ended its wait before the port closes', async () => {
    const { a, b } = await pair()
    // b answers at once: its answer carries the acknowledgement a's close is waiting for.
    b.onMessage((_from, msg) => b.send('a', `re: ${String(msg)}`))
    const atA = inbox(a)
    const seen = signalsOf(b)
    a.send('b', 'question')
    const report = await bounded(a.close({ timeoutMs: 30_000 }), 60_000, 'graceful close')
    expect(report.abandonedMessages).toBe(0)
    expect(atA).toEqual(['re: question'])
    // The answer was delivered, so it must be acknowledged, not retransmitted into a closed port.
    await pollUntil(
      () => b.linkInfo('a')?.queuedMessages === 0,
      "a's acknowledgement of the answer",
      30_000,
    )
    expect(unreachable(seen)).toEqual([])
  })
})
