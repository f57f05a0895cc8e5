import assert from 'node:assert/strict'
import { SparseVectorClock, toShiVizLog } from '@sd/clocks'

const client = new SparseVectorClock('client')
const server = new SparseVectorClock('server')
const request = client.tick().snapshot()
const log = toShiVizLog([
  { host: 'client', clock: request, event: 'send request' },
  { host: 'server', clock: server.receive(request).snapshot(), event: 'handle request' },
])
assert.equal(
  log,
  'client {"client":1}\nsend request\nserver {"client":1, "server":1}\nhandle request\n',
)
// Save it as a .log file and open it in ShiViz (https://bestchai.bitbucket.io/shiviz/) with the
// regular expression SHIVIZ_REGEX, or pass { header: true } to put it in the file. A simulator
// trace converts directly: traceToShiViz(net.trace).
