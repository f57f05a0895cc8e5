import type { NodeId } from '../ids.js'
import { describeTransportCompliance, pollUntil } from '../testing/index.js'
import { createUdpTransport, type UdpTransport } from './index.js'

for (const keyed of [false, true]) {
  describeTransportCompliance(keyed ? 'udp (loopback, authenticated)' : 'udp (loopback)', () => {
    let created: UdpTransport[] = []
    return {
      async create(ids: NodeId[]) {
        created = await Promise.all(
          ids.map((id) =>
            createUdpTransport({ id, key: keyed ? 'compliance-suite-shared-key' : undefined }),
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
