/**
 * Datagrams from UDP source port 0, which no ordinary socket can send (binding port 0 picks a
 * free port): a raw IPv4 socket writes the UDP header itself. Needs root (CAP_NET_RAW) and
 * python3; `gatePortZero` skips with a notice without them, except under SD_REQUIRE_ALL=1.
 */
import { execFile } from 'node:child_process'
import { findTool, unavailable } from '../../support/interop.js'

/** Reads hex payloads, one a line, and sends each to 127.0.0.1:<argv[1]> from port 0. */
const SENDER = `
import socket, struct, sys, time
port = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
n = 0
for line in sys.stdin:
    payload = bytes.fromhex(line.strip())
    # Source port 0; checksum 0 means none, which IPv4 allows.
    s.sendto(struct.pack('!HHHH', 0, port, 8 + len(payload), 0) + payload, ('127.0.0.1', 0))
    n += 1
    # A breath every 16, so the receiver's buffer is not what is being tested.
    if n % 16 == 0:
        time.sleep(0.002)
print(n)
`

/** Why datagrams from port 0 cannot be sent here (after a notice), or undefined. */
export function gatePortZero(what: string): string | undefined {
  const why =
    unavailable(['root']) ?? (findTool('python3') ? undefined : 'missing `python3` (raw sockets)')
  if (why && process.env.SD_REQUIRE_ALL === '1')
    throw new Error(`${what} cannot run (${why}) and SD_REQUIRE_ALL=1`)
  if (why) console.warn(`skipping ${what}: ${why}`)
  return why
}

/** Sends `payloads` to 127.0.0.1:`port` from source port 0; resolves to how many were sent. */
export function sendFromPortZero(port: number, payloads: readonly Uint8Array[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      findTool('python3') ?? 'python3',
      ['-c', SENDER, String(port)],
      { timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`raw sender failed: ${stderr.trim() || error.message}`))
        else resolve(Number(stdout.trim()))
      },
    )
    child.stdin?.end(payloads.map((p) => `${Buffer.from(p).toString('hex')}\n`).join(''))
  })
}
