// Defect 6: with a key, datagrams a restarted peer sent before its new incarnation was confirmed never
// entered the replay window, so each could be replayed once after confirmation (then refused only as a
// link duplicate). After the fix they are refused as `replayed`.
import { describe, expect, it } from 'vitest'
import {
  Attacker,
  CaptureProxy,
  closeEverythingAfterEach,
  droppedBetween,
  inbox,
  LOOPBACK,
  node,
  pollUntil,
  sendPaced,
} from './support.js'

closeEverythingAfterEach()

const KEY = 'replay-before-confirmation-key'

describe('defect 6: replay of datagrams sent before an incarnation was confirmed', () => {
  it('data a restarted peer sent before confirmation is refused as replayed when replayed after it', async () => {
    const oldA = await node({ id: 'a', key: KEY })
    const port = oldA.address.port
    const b = await node({ id: 'b', key: KEY })
    // b reaches a at a fixed port through the proxy, so the restarted a (same port) is reached too.
    const proxy = await CaptureProxy.start(port, b.address.port)
    oldA.setPeer('b', `${LOOPBACK}:${proxy.portForA}`)
    b.setPeer('a', `${LOOPBACK}:${proxy.portForB}`)
    const atB = inbox(b)
    for (let i = 0; i < 5; i++) oldA.send('b', `old-${i}`)
    await pollUntil(() => atB.length === 5, 'the first five messages', 30_000)

    // a restarts: same id, same port, a new incarnation; it sends at once.
    const oldInc = proxy.aToB[0]!.srcInc
    await oldA.close({ graceful: false })
    // b's challenge reaches the new a only once that a has sent data, so the data goes out before
    // b confirms the new incarnation, whichever HELLO b happens to answer first.
    proxy.holdFromB = (s) => s.kind === 'hello'
    const newA = await node({
      id: 'a',
      key: KEY,
      bind: { port },
      peers: { b: `${LOOPBACK}:${proxy.portForA}` },
    })
    for (let i = 0; i < 5; i++) newA.send('b', `new-${i}`)
    const fromNewA = () => proxy.aToB.filter((s) => s.srcInc !== oldInc)
    await pollUntil(() => fromNewA().some((s) => s.kind === 'data'), 'data from the new a', 30_000)
    proxy.release()
    await pollUntil(() => atB.length === 10, 'the five messages of the new a', 30_000)

    // From the wire: the new a's data sent before it answered b's challenge (which confirmed it).
    const sinceRestart = fromNewA()
    const confirmedAt = sinceRestart.findIndex((s) => s.kind === 'hello-reply')
    expect(confirmedAt, "the new a's answer to b's challenge").toBeGreaterThan(0)
    const early = sinceRestart.slice(0, confirmedAt).filter((s) => s.kind === 'data')
    expect(early.length, 'data datagrams sent before confirmation').toBeGreaterThan(0)
    expect(b.stats.dropped['stale-incarnation']).toBeGreaterThanOrEqual(early.length)

    const before = b.stats
    const attacker = await Attacker.open()
    await sendPaced(attacker, b.address.port, early.length, (i) => early[i]!.bytes, b)
    const after = b.stats
    expect(
      after.dropped.replayed - before.dropped.replayed,
      `early datagrams refused as replayed (drops: ${JSON.stringify(droppedBetween(before, after))})`,
    ).toBe(early.length)
    expect(after.messagesDelivered - before.messagesDelivered).toBe(0)
  })
})
