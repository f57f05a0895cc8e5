// Defect 3: the reassembly bound counted payload bytes only, so zero-byte fragments cost nothing
// against it while each one kept a few hundred bytes alive: about 18 MB per peer (reliable) and 250 MB
// (unreliable) against the documented 1 MiB and 16 MiB. After the fix empty fragments are refused as
// malformed and every fragment counts its payload plus a fixed overhead.
import { describe, expect, it } from 'vitest'
import { Reassembler } from '../../../src/udp/fragments.js'
import {
  Attacker,
  closeEverythingAfterEach,
  forgeDataFragment,
  heldBytes,
  LOOPBACK,
  learnIncarnation,
  MB,
  node,
  receivedFragment,
  sendPaced,
} from './support.js'

closeEverythingAfterEach()

const KEY = 'reassembly-bound-shared-key'
/** The most fragments a message can announce (16-bit count); one short of it never completes. */
const COUNT = 65_535
const FRAGMENTS = COUNT - 1

describe('defect 3: zero-byte fragments against the reassembly memory bound', () => {
  it('reliable mode: 65,534 zero-byte fragments from a key holder leave the receiver under 4 MB more heap', async () => {
    const b = await node({ id: 'b', key: KEY })
    const attacker = await Attacker.open()
    b.setPeer('a', `${LOOPBACK}:${attacker.port}`)
    const claim = { from: 'a', to: 'b', key: KEY }
    const inc = 0x0a0a_0a0a
    const bInc = await learnIncarnation(attacker, b.address.port, claim, inc)
    attacker.recording = false // b's acknowledgements would otherwise pile up in the test's own heap
    const before = await heldBytes()
    // One message announcing 65,535 fragments, sent in sequence order (the link delivers them to
    // reassembly) and never completed. Packet numbers go up so the replay window lets each through.
    await sendPaced(
      attacker,
      b.address.port,
      FRAGMENTS,
      (i) =>
        forgeDataFragment(
          claim,
          {
            srcInc: inc,
            dstInc: bInc,
            pn: 1 + i,
            seq: i,
            frag: { msgId: 7, index: i, count: COUNT },
          },
          new Uint8Array(0),
        ),
      b,
    )
    const growth = (await heldBytes()) - before
    expect(b.stats.datagramsReceived, 'the flood reached b').toBeGreaterThanOrEqual(FRAGMENTS)
    expect(growth / MB, 'MB held by b after the flood (bound 1 MiB + margin)').toBeLessThan(4)
    expect(b.stats.messagesDelivered).toBe(0)
  }, 180_000)

  it('unreliable mode: 16 partial messages of 65,534 zero-byte fragments stay under 40 MB (Reassembler)', async () => {
    // About a million datagrams is too slow through sockets: the reassembler is fed the same views
    // of received datagrams the transport would hand it, with the transport's unreliable settings.
    let discarded = 0
    const reassembler = new Reassembler({
      maxMessageBytes: 1 << 20,
      maxPartial: 16,
      timeoutMs: 5000,
      onDiscard: () => discarded++,
    })
    const before = await heldBytes()
    let completed = 0
    for (let msgId = 0; msgId < 16; msgId++) {
      for (let index = 0; index < FRAGMENTS; index++) {
        const { frag, payload } = receivedFragment({ msgId, index, count: COUNT }, 0)
        if (reassembler.add(frag, payload, 0) instanceof Uint8Array) completed++
      }
    }
    const growth = (await heldBytes()) - before
    expect(growth / MB, 'MB held by the reassembler (bound 16 MiB + margin)').toBeLessThan(40)
    expect(completed).toBe(0)
    expect(discarded).toBe(0) // 16 partials fit maxPartial: nothing was evicted to make room
    reassembler.clear()
  }, 180_000)
})
