import type { NodeId } from '../ids.js'
import { describeTransportCompliance, pollUntil } from '../testing/index.js'
import { createUdpTransport, type UdpTransport } from './index.js'

// Also with `coalesce`: every message sent in a turn leaves at its end, bundled.
for (const [keyed, coalesce] of [
  [false, false],
  [true, false],
  [false, true],
  [true, true],
] as const) {
  const name = `udp (loopback${keyed ? ', authenticated' : ''}${coalesce ? ', coalesce' : ''})`
  describeTransportCompliance(name, () => {
    let created: UdpTransport[] = []
    return {
      async create(ids: NodeId[]) {
        created = await Promise.all(
          ids.map((id) =>
            createUdpTransport({
              id,
              key: keyed ? 'compliance-suite-shared-key' : undefined,
              coalesce,
            }),
          ),
        )
        for (const t of created)
          for (const other of created)
            if (other !== t) t.setPeer(other.self, { host: '127.0.0.1', port: other.address.port })
        return created
      },
      settle: (done, what) => pollUntil(done, what),
      async teardown() {
        await Promise.all(created.map((t) => t.close({ graceful: false })))
      },
    }
  })
}
