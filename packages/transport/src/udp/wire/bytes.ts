/**
 * Big-endian integers as plain byte stores and loads. Buffer's writeUInt32BE and friends check
 * their arguments on every call; the wire code computes its offsets from lengths it has already
 * checked, so it uses these on the per-datagram path.
 */
export function putU16(buf: Uint8Array, at: number, value: number): void {
  buf[at] = value >>> 8
  buf[at + 1] = value
}

export function putU32(buf: Uint8Array, at: number, value: number): void {
  buf[at] = value >>> 24
  buf[at + 1] = value >>> 16
  buf[at + 2] = value >>> 8
  buf[at + 3] = value
}

/** Values below 2^48. */
export function putU48(buf: Uint8Array, at: number, value: number): void {
  putU16(buf, at, Math.floor(value / 0x1_0000_0000))
  putU32(buf, at + 2, value >>> 0)
}

export function getU16(buf: Uint8Array, at: number): number {
  return (buf[at]! << 8) | buf[at + 1]!
}

export function getU32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0
}

export function getU48(buf: Uint8Array, at: number): number {
  return getU16(buf, at) * 0x1_0000_0000 + getU32(buf, at + 2)
}
