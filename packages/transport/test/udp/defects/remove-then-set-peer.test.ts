// Defect 4: removePeer + setPeer forgot the link on one side only. The re-adding side started again
// at sequence 0 (the other side took it all for duplicates), or, with a key, accepted old datagrams
// replayed to it as new. After the fix the link survives a re-add on either side, and replays do not.
import { describe, expect, it } from 'vitest'
import {
  Attacker,
  CaptureProxy,
  closeEverythingAfterEach,
  inbox,
  LOOPBACK,
  node,
  pair,
  pollUntil,
  type Sniffed,
  sendPaced,
  signalsOf,
  unreachable,
} from './support.js'

closeEverythingAfterEach()

const KEY = 'remove-then-set-peer-shared-key'
/** a retransmits for about 13 s with the default settings before it gives up: wait well beyond that. */
const GIVE_UP_BOUND_MS = 60_000

describe('defect 4: removePeer then setPeer', () => {
  it('a re-added peer keeps receiving: 50 messages after the re-add all arrive, in order', async () => {
    const { a, b } = await pair()
    const atA = inbox(a)
    const atB = inbox(b)
    // More messages before the re-add than after, so a restart at seq 0 is all duplicates at b.
    for (let i = 0; i < 60; i++) a.send('b', `before-${i}`)
    for (let i = 0; i < 5; i++) b.send('a', `reply-${i}`)
    await pollUntil(() => atB.length === 60 && atA.length === 5, 'the first exchange', 30_000)

    expect(a.removePeer('b')).toBe(true)
    a.setPeer('b', `${LOOPBACK}:${b.address.port}`)
    const seen = signalsOf(a)
    const after = Array.from({ length: 50 }, (_, i) => `after-${i}`)
    for (const m of after) a.send('b', m)
    await pollUntil(
      () => atB.length === 110 || unreachable(seen).length > 0,
      'the 50 messages at b, or a peer-unreachable at a',
      GIVE_UP_BOUND_MS,
    )
    expect(atB.slice(60), 'messages b received after the re-add').toEqual(after)
    expect(unreachable(seen), 'peer-unreachable signals at a').toEqual([])
  })

  for (const side of ['b', 'a'] as const) {
    it(`with a key, datagrams captured before a re-add on ${side}'s side are not delivered again when replayed`, async () => {
      const a = await node({ id: 'a', key: KEY })
      const b = await node({ id: 'b', key: KEY })
      const proxy = await CaptureProxy.start(a.address.port, b.address.port)
      a.setPeer('b', `${LOOPBACK}:${proxy.portForA}`)
      b.setPeer('a', `${LOOPBACK}:${proxy.portForB}`)
      const atB = inbox(b)
      for (let i = 0; i < 200; i++) a.send('b', i)
      await pollUntil(() => atB.length === 200, '200 messages at b', 30_000)
      // Quiet link first: a has every acknowledgement (no retransmission left).
      await pollUntil(() => a.linkInfo('b')?.queuedMessages === 0, "b's final ack", 30_000)
      // However many datagrams carried them (messages that waited for the handshake travel bundled).
      const captured: Sniffed[] = proxy.aToB.filter((s) => s.kind === 'data')
      expect(captured.length, 'data datagrams captured a -> b').toBeGreaterThan(0)

      if (side === 'b') {
        b.removePeer('a')
        b.setPeer('a', `${LOOPBACK}:${proxy.portForB}`)
      } else {
        a.removePeer('b')
        a.setPeer('b', `${LOOPBACK}:${proxy.portForA}`)
      }
      const delivered = b.stats.messagesDelivered
      const dropped = b.stats.droppedTotal
      const attacker = await Attacker.open()
      await sendPaced(attacker, b.address.port, captured.length, (i) => captured[i]!.bytes, b, 50)
      expect(b.stats.messagesDelivered - delivered, 'replayed messages delivered again').toBe(0)
      expect(atB.length).toBe(200)
      expect(b.stats.droppedTotal - dropped, 'replayed datagrams dropped').toBeGreaterThanOrEqual(
        captured.length,
      )

      // And the link itself still works after the re-add.
      const seen = signalsOf(a)
      for (let i = 0; i < 5; i++) a.send('b', `fresh-${i}`)
      await pollUntil(
        () => atB.length >= 205 || unreachable(seen).length > 0,
        'the fresh messages at b, or a peer-unreachable at a',
        GIVE_UP_BOUND_MS,
      )
      expect(atB.slice(200), 'messages b received after the replay').toEqual(
        Array.from({ length: 5 }, (_, i) => `fresh-${i}`),
      )
      expect(unreachable(seen)).toEqual([])
    })
  }
})
