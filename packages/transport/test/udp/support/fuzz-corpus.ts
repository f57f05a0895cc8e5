/**
 * Datagram generators for fuzzing (the test suite and scripts/fuzz-udp.ts): well-formed datagrams
 * of every type from a known peer, signed or not, and mutations of them (bit flips, truncation,
 * extension, splices, field overwrites). Deterministic for a given random source.
 */
import type { RemoteInfo } from 'node:dgram'
import type { NodeId } from '../../../src/ids.js'
import { Authenticator } from '../../../src/udp/auth.js'
import type { UdpTransport } from '../../../src/udp/udp-transport.js'
import { encodableAckRanges } from '../../../src/udp/wire/ack-block.js'
import {
  encodeDatagram,
  encodeIdField,
  MAC_BYTES,
  type OutgoingHeader,
  PacketType,
} from '../../../src/udp/wire/header.js'

export type Rand = () => number

const int = (r: Rand, min: number, max: number) => min + Math.floor(r() * (max - min + 1))

export interface CorpusTarget {
  /** The node receiving the datagrams. */
  id: NodeId
  incarnation: number
  /** The known peer the datagrams claim to come from. */
  peer: NodeId
  peerIncarnation: number
  key?: string
  /** Packet numbers to use (mostly increasing, as a live sender's); random when absent. */
  pn?: () => number
}

/** A well-formed datagram from `peer` to `id`, signed with `key` when set. */
export function validDatagram(r: Rand, t: CorpusTarget): Buffer {
  const types = [
    PacketType.Data,
    PacketType.Ack,
    PacketType.Unreliable,
    PacketType.Hello,
    PacketType.HelloReply,
  ]
  const type = types[int(r, 0, types.length - 1)]!
  const h: OutgoingHeader = {
    type,
    srcInc: r() < 0.9 ? t.peerIncarnation : int(r, 1, 0xffffffff),
    dstInc: r() < 0.9 ? t.incarnation : int(r, 0, 0xffffffff),
    pn: t.pn && r() < 0.95 ? t.pn() : int(r, 0, 5000),
    srcIdField: encodeIdField(r() < 0.95 ? t.peer : `stranger-${int(r, 0, 9)}`),
    dstIdField: encodeIdField(r() < 0.95 ? t.id : 'someone-else'),
    seq: r() < 0.5 ? int(r, 0, 40) : int(r, 0, 3000),
    base: r() < 0.8 ? 0 : int(r, 0, 3000),
    ack: r() < 0.5 ? undefined : randomAckRanges(r),
    nonce: int(r, 0, 0xffffffff),
  }
  if ((type === PacketType.Data || type === PacketType.Unreliable) && r() < 0.3) {
    const count = int(r, 2, r() < 0.9 ? 6 : 65535)
    h.frag = { msgId: int(r, 0, 40), index: int(r, 0, count - 1), count }
  }
  const payload =
    type === PacketType.Data || type === PacketType.Unreliable
      ? Buffer.from(
          r() < 0.8
            ? JSON.stringify({ n: int(r, 0, 1e6), s: 'x'.repeat(int(r, 0, 40)) })
            : randomBytes(r, int(r, 0, 300)),
        )
      : undefined
  const macBytes = t.key === undefined ? 0 : MAC_BYTES
  const buf = encodeDatagram(h, payload, macBytes)
  if (t.key !== undefined) new Authenticator(t.key).sign(buf)
  return buf
}

export function randomBytes(r: Rand, length: number): Buffer {
  const out = Buffer.allocUnsafe(length)
  for (let i = 0; i < length; i++) out[i] = (r() * 256) | 0
  return out
}

/** A damaged copy of `valid` (never identical to it). */
export function mutate(r: Rand, valid: Buffer): Buffer {
  for (;;) {
    const out = mutateOnce(r, valid)
    if (!out.equals(valid)) return out
  }
}

function mutateOnce(r: Rand, valid: Buffer): Buffer {
  const out = Buffer.from(valid)
  switch (int(r, 0, 6)) {
    case 0: {
      const flips = int(r, 1, 4)
      for (let i = 0; i < flips; i++) {
        const at = int(r, 0, out.length - 1)
        out[at] = out[at]! ^ (1 << int(r, 0, 7))
      }
      return out
    }
    case 1:
      return out.subarray(0, int(r, 0, Math.max(0, out.length - 1)))
    case 2:
      return Buffer.concat([out, randomBytes(r, int(r, 1, 64))])
    case 3: {
      const at = int(r, 0, out.length - 1)
      out[at] = int(r, 0, 255)
      return out
    }
    case 4: {
      // Overwrite a header byte (type, flags, version, id lengths) with an edge value.
      const at = int(r, 0, Math.min(out.length - 1, 40))
      out[at] = [0, 1, 2, 0x7f, 0x80, 0xff][int(r, 0, 5)]!
      return out
    }
    case 5: {
      const cut = int(r, 0, out.length)
      return Buffer.concat([out.subarray(0, cut), randomBytes(r, int(r, 0, 16)), out.subarray(cut)])
    }
    default:
      return randomBytes(r, int(r, 0, 1600))
  }
}

const fakeRemote: RemoteInfo = { address: '127.0.0.1', family: 'IPv4', port: 9, size: 0 }

/** Feeds bytes to a transport as if they arrived on its socket (bypasses the kernel, for speed). */
export function inject(t: UdpTransport<unknown>, buf: Buffer): void {
  ;(t as unknown as { onDatagram(b: Buffer, r: RemoteInfo): void }).onDatagram(buf, {
    ...fakeRemote,
    size: buf.length,
  })
}

/** Plausible or absurd acknowledgement ranges (highest first, as the wire wants them). */
function randomAckRanges(r: Rand): number[] {
  let hi = int(r, 0, r() < 0.9 ? 60 : 0xffff_ffff)
  const ranges: number[] = []
  const count = int(r, 1, r() < 0.9 ? 3 : 17)
  for (let k = 0; k < count && hi >= 0; k++) {
    const lo = Math.max(0, hi - int(r, 0, 10))
    ranges.push(hi, lo)
    hi = lo - 2 - int(r, 0, 5)
  }
  return encodableAckRanges(ranges)
}
