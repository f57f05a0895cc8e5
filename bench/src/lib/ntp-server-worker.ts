/**
 * An NTP server of ours in its own process, for the timesync benchmark: config as JSON in argv
 * ({ port, offsetMs }); prints {"type":"ready","port":P}; exits when stdin closes.
 */
import { createNtpServer } from '@sd/timesync/udp'

const config = JSON.parse(process.argv[2] ?? '{}') as { port: number; offsetMs: number }
const server = await createNtpServer({
  host: '127.0.0.1',
  port: config.port,
  offsetMs: config.offsetMs,
})
console.log(JSON.stringify({ type: 'ready', port: server.port }))
process.stdin.resume()
process.stdin.on('end', () => {
  void server.close().then(() => process.exit(0))
})
