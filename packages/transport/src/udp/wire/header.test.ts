import { describe, expect, it } from 'vitest'
import { decodeDatagram, encodeDatagram, encodeIdField, PacketType } from './header.js'

describe('wire header', () => {
  it('round-trips ids of every kind, including ones that spell a decode failure', () => {
    const ids = [
      'malformed',
      'truncated',
      'bad-version',
      'nó-ü-東京',
      'x'.repeat(200),
      7,
      -0.5,
      1e300,
    ]
    for (const from of ids) {
      for (const to of ['b', 42]) {
        const bytes = encodeDatagram(
          {
            type: PacketType.Data,
            srcInc: 1,
            dstInc: 2,
            pn: 2 ** 47 + 3,
            srcIdField: encodeIdField(from),
            dstIdField: encodeIdField(to),
            seq: 0xffff_ffff,
            base: 9,
            ack: [70_000, 69_990, 10, 3],
          },
          Buffer.from('"payload"'),
          0,
        )
        const d = decodeDatagram(bytes)
        if (typeof d === 'string') throw new Error(`${String(from)} -> ${to}: ${d}`)
        expect([d.from, d.to, d.pn, d.seq, d.base, d.ack]).toEqual([
          from,
          to,
          2 ** 47 + 3,
          0xffff_ffff,
          9,
          [70_000, 69_990], // the older run is 69,978 numbers away: more than a gap field holds
        ])
        expect(Buffer.from(d.payload).toString()).toBe('"payload"')
      }
    }
  })
})
