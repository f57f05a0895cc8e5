/**
 * The baseline in a worker: one node-discover 1.2.1 instance, unicast only (its default broadcasts
 * to 255.255.255.255), bound to this node's address and a port of its own. Its options are read
 * with `||` (a 0 becomes the default) and its `key` option needs crypto.createCipher (gone from new
 * Node): neither is used here.
 */
import { createSocket } from 'node:dgram'
import { createRequire } from 'node:module'
import type { ElectionNode, NodeMaker } from './election-node.js'

interface DiscoverNode {
  isMaster?: boolean
  advertisement?: { id?: string }
}

interface Discover {
  me: { isMaster: boolean }
  nodes: Record<string, DiscoverNode>
  broadcast: { socket: { on(event: 'error', listener: (e: Error) => void): void } }
  start(callback: (error: unknown, started: boolean) => void): void
  stop(): void
  on(event: string, listener: () => void): void
  removeAllListeners(): void
}

interface DiscoverOptions {
  helloInterval: number
  checkInterval: number
  nodeTimeout: number
  masterTimeout: number
  address: string
  port: number
  unicast: string[]
  weight: number
  reuseAddr: boolean
  start: boolean
  advertisement: { id: string }
}

const require = createRequire(import.meta.url)
const DiscoverClass = require('node-discover') as new (options: DiscoverOptions) => Discover

/** A free UDP port on `host` (bound and released: node-discover wants a number up front). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4')
    socket.once('error', reject)
    socket.bind({ address: host, port: 0 }, () => {
      const { port } = socket.address()
      socket.close(() => resolve(port))
    })
  })
}

/** Events after which what the instance believes may have changed. */
const changes = ['promotion', 'demotion', 'added', 'removed', 'master', 'helloReceived', 'check']

export const discoverNode: NodeMaker = async (spec, report) => {
  const port = await freePort(spec.host)
  const weight = Number(spec.id.replace(/\D/g, ''))
  if (!(weight > 0)) throw new RangeError(`node-discover: id ${spec.id} gives no weight above 0`)
  let discover: Discover | undefined
  let last = ''

  const look = () => {
    if (!discover) return
    // Every master it knows of, itself included: node-discover keeps a master in `nodes` until
    // masterTimeout of silence.
    const masters: string[] = discover.me.isMaster ? [spec.id] : []
    for (const node of Object.values(discover.nodes)) {
      if (node.isMaster) masters.push(node.advertisement?.id ?? '?')
    }
    const view = {
      leader: masters.length === 1 ? masters[0]! : null,
      self: discover.me.isMaster,
      masters: masters.length,
    }
    const key = JSON.stringify(view)
    if (key === last) return
    last = key
    report(view)
  }

  const node: ElectionNode = {
    port,
    start(peers) {
      const unicast = Object.values(peers)
      // Never without unicast: node-discover would broadcast out of the real interface.
      if (unicast.length === 0) throw new Error('node-discover: no unicast peers')
      const s = spec.settings
      discover = new DiscoverClass({
        helloInterval: s.helloIntervalMs,
        checkInterval: s.checkIntervalMs,
        nodeTimeout: s.nodeTimeoutMs,
        masterTimeout: s.masterTimeoutMs,
        address: spec.host,
        port,
        unicast,
        // Like the bully's ids: the highest wins (the default prefers the earliest start).
        weight,
        // Its default (true) would share the port with anyone bound to it.
        reuseAddr: false,
        start: false,
        advertisement: { id: spec.id },
      })
      discover.broadcast.socket.on('error', (e) => {
        console.error(`node-discover ${spec.id}: ${String(e)}`)
      })
      for (const event of changes) discover.on(event, look)
      look()
      discover.start((error) => {
        if (error) console.error(`node-discover ${spec.id}: ${String(error)}`)
      })
    },
    async close() {
      if (!discover) return
      discover.removeAllListeners()
      discover.stop()
      discover = undefined
    },
  }
  return node
}
