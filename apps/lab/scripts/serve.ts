/**
 * `pnpm lab [--port N]`: builds the lab (a static site: the packages bundled into the page) and
 * serves it on 127.0.0.1 (port 5200, or a free one when that is taken), printing the address.
 * Nothing listens beyond loopback; Ctrl-C stops it. `pnpm lab:build` only builds (apps/lab/dist),
 * for any static host.
 */
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type StaticServer, serveStatic } from '@sd/visualizer/scripts/static-server.js'
import { build } from 'vite'

export const DEFAULT_PORT = 5200
const app = fileURLToPath(new URL('..', import.meta.url))

function usage(problem?: string): never {
  if (problem) console.error(`lab: ${problem}`)
  console.error('usage: pnpm lab [--port N]')
  process.exit(2)
}

const args = process.argv.slice(2).filter((a) => a !== '--')
let port = DEFAULT_PORT
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!
  if (arg === '--help' || arg === '-h') usage()
  else if (arg === '--port' || arg.startsWith('--port=')) {
    const value = arg.includes('=') ? arg.split('=')[1] : args[++i]
    port = Number(value)
    if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad port ${value}`)
  } else usage(`unknown argument ${arg}`)
}

await build({ root: app, logLevel: 'warn' })
const root = resolve(app, 'dist')
let server: StaticServer
try {
  server = await serveStatic({ root, port })
} catch (e) {
  if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e
  console.error(`port ${port} is taken: using a free one`)
  server = await serveStatic({ root, port: 0 })
}
console.log(`sd lab: ${server.origin}/`)
console.log(`lessons: ${server.origin}/?lesson=bully · Ctrl-C stops`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0))
    server.server.closeAllConnections()
  })
}
