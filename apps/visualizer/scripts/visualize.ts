/**
 * `pnpm visualize [FILE] [--port N]`: builds the page, serves it on 127.0.0.1 (port 5199, or a
 * free one when that is taken) with FILE at /traces/<its name>, and prints the address that opens
 * it. FILE is an sd trace (`sd run <scenario> --trace FILE`) or a ShiViz / GoVector log. Nothing
 * listens beyond loopback; Ctrl-C stops it.
 */
import { existsSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import { type StaticServer, serveStatic } from './static-server.js'

export const DEFAULT_PORT = 5199
const app = fileURLToPath(new URL('..', import.meta.url))

function usage(problem?: string): never {
  if (problem) console.error(`visualize: ${problem}`)
  console.error('usage: pnpm visualize [FILE] [--port N]   (FILE: an sd trace or a ShiViz log)')
  process.exit(2)
}

const args = process.argv.slice(2).filter((a) => a !== '--')
let file: string | undefined
let port = DEFAULT_PORT
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!
  if (arg === '--help' || arg === '-h') usage()
  else if (arg === '--port' || arg.startsWith('--port=')) {
    const value = arg.includes('=') ? arg.split('=')[1] : args[++i]
    port = Number(value)
    if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad port ${value}`)
  } else if (arg.startsWith('-')) usage(`unknown option ${arg}`)
  else if (file === undefined) file = arg
  else usage('one FILE at most')
}

// pnpm runs root scripts from the repository root; INIT_CWD is where the command was typed.
const cwd = process.env.INIT_CWD ?? process.cwd()
const path = file === undefined ? undefined : resolve(cwd, file)
if (path && !existsSync(path)) usage(`no such file: ${path}`)

await build({ root: app, logLevel: 'warn' })
const name = path ? basename(path) : undefined
const options = {
  root: resolve(app, 'dist'),
  files: name && path ? { [`/traces/${name}`]: path } : {},
}
let server: StaticServer
try {
  server = await serveStatic({ ...options, port })
} catch (e) {
  if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e
  console.error(`port ${port} is taken: using a free one`)
  server = await serveStatic({ ...options, port: 0 })
}
const url = `${server.origin}/${name ? `?trace=${encodeURIComponent(`/traces/${name}`)}` : ''}`
console.log(`sd visualizer: ${url}`)
console.log(name ? `serving ${path}; Ctrl-C stops` : 'open a trace from the page; Ctrl-C stops')
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0))
    server.server.closeAllConnections()
  })
}
