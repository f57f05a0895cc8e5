/**
 * A process that serves NTP with our server, for tests that need it elsewhere (in a network
 * namespace, on port 123). Config (argv[2], JSON): { servers: [{ host, port, offsetMs }] }.
 * Prints `READY <address>:<port> ...` once every server is bound; exits on SIGTERM, SIGINT, or
 * when its stdin closes (the test that spawned it is gone).
 */
import { onParentLines, workerConfig } from '../../../../test-support/worker-process.js'
import { createNtpServer } from '../../src/ntp/udp.js'

interface Config {
  servers: Array<{ host: string; port: number; offsetMs: number }>
}

const config = workerConfig<Config>({ servers: [] })
const servers = await Promise.all(config.servers.map((s) => createNtpServer(s)))
console.log(`READY ${servers.map((s) => `${s.address}:${s.port}`).join(' ')}`)

let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  await Promise.all(servers.map((s) => s.close()))
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
onParentLines({ close: stop })
