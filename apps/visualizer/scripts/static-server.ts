/**
 * A small static file server for the built page, bound to loopback only: `pnpm visualize` and the
 * browser tests use it. GET and HEAD only; paths are confined to their root (no `..` escape).
 */
import { createReadStream, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { extname, join, resolve, sep } from 'node:path'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
}

export interface StaticServer {
  server: Server
  port: number
  /** `http://127.0.0.1:<port>` */
  origin: string
  close(): Promise<void>
}

export interface StaticOptions {
  /** The directory served at `/` (the vite build output). */
  root: string
  /** More directories, by URL prefix: `{ '/traces/': '/tmp/traces' }`. */
  mounts?: Record<string, string>
  /** Single files, by URL path: `{ '/traces/t.json': '/tmp/t.json' }`. */
  files?: Record<string, string>
  port?: number
  host?: string
}

/** The file under `dir` that `rest` names, or undefined when it would leave `dir`. */
function inside(dir: string, rest: string): string | undefined {
  const base = resolve(dir)
  const path = resolve(join(base, rest))
  return path === base || path.startsWith(base + sep) ? path : undefined
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

export function serveStatic(options: StaticOptions): Promise<StaticServer> {
  const host = options.host ?? '127.0.0.1'
  const mounts = Object.entries(options.mounts ?? {}).sort((a, b) => b[0].length - a[0].length)
  const files = options.files ?? {}
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end()
      return
    }
    let pathname: string
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    } catch {
      res.writeHead(400).end()
      return
    }
    let path: string | undefined = files[pathname]
    if (path === undefined) {
      const mount = mounts.find(([prefix]) => pathname.startsWith(prefix))
      path = mount
        ? inside(mount[1], pathname.slice(mount[0].length))
        : inside(options.root, pathname === '/' ? 'index.html' : pathname)
    }
    if (path === undefined || !isFile(path)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${pathname}\n`)
      return
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(path)] ?? 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
    })
    if (req.method === 'HEAD') res.end()
    else createReadStream(path).pipe(res)
  })
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      resolvePromise({
        server,
        port,
        origin: `http://${host}:${port}`,
        close: () => new Promise((done) => server.close(() => done())),
      })
    })
  })
}
