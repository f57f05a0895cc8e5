/**
 * Where the nodes run. Either each node is a host of its own: a network namespace with one
 * interface on a bridge that lives in a namespace too, so nothing is configured in the machine's
 * own namespace and deleting the namespaces deletes everything; or every node binds a port on
 * loopback (no root needed, but no real partition nor packet loss).
 *
 * Faults in namespace mode are nftables rules in a `netdev` table on each host's interface,
 * at ingress and egress: silent drops both ways, as a real network fault is (a drop in an
 * `output` hook would make send() fail with EPERM instead). A partition drops, on every host of
 * the minority, the packets from and to the majority's addresses; loss drops a random share of
 * the packets entering every host (`numgen random mod 100 < P`). Each rule counts what it drops.
 *
 * Its own namespace helpers, not test-support/netns.ts: this is runtime code (`pnpm cluster`),
 * which must not import the repository's test support.
 */
import { spawnSync } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { isFiniteNumber, isRecord, isString, shape } from '@sd/transport'

export interface Hosts {
  readonly mode: 'netns' | 'loopback'
  /** Per node: its address and UDP port. */
  readonly addresses: readonly string[]
  readonly ports: readonly number[]
  /** The namespaces made (empty on loopback). */
  readonly namespaces: readonly string[]
  /** The command prefix that runs a program on host `index`. */
  exec(index: number): string[]
  /** Cuts hosts `minority` off from the others (both ways); they still reach each other. */
  partition(minority: readonly number[]): void
  /** Drops `percent` of the packets entering every host (0 removes the rule). */
  setLoss(percent: number): void
  /** Removes the partition and the loss. */
  heal(): void
  /** Per host, the packets the fault rules dropped so far: [partition, loss]. */
  drops(): Array<{ cut: number; loss: number }>
  /** Deletes every namespace; idempotent and synchronous, so that exit handlers can call it. */
  destroy(): void
}

/** Why namespaces cannot be used here, or undefined when they can. */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux')
    return `network namespaces are Linux only (this is ${process.platform})`
  if (process.geteuid?.() !== 0) return 'making network namespaces takes root'
  const tools: Array<[string, string[], string]> = [
    ['ip', ['-V'], 'iproute2'],
    ['nft', ['-v'], 'nftables'],
  ]
  for (const [tool, versionArgs, pkg] of tools) {
    if (spawnSync(tool, versionArgs, { stdio: 'ignore' }).status !== 0) {
      return `\`${tool}\` (${pkg}) is not installed`
    }
  }
  return undefined
}

function sh(command: string, args: readonly string[], input?: string): string {
  const r = spawnSync(command, args, { input, encoding: 'utf8', timeout: 10_000 })
  if (r.status !== 0) {
    throw new Error(`${command} ${args.join(' ')}: ${r.error?.message ?? r.stderr.trim()}`)
  }
  return r.stdout
}

/** Whether process `pid` still exists (signal 0 tests without sending anything). */
export function running(pid: number): boolean {
  try {
    return process.kill(pid, 0)
  } catch (error) {
    // Exists, but belongs to someone else.
    return error instanceof Error && 'code' in error && error.code === 'EPERM'
  }
}

export const NETNS_PREFIX = 'sdc'
const TABLE = 'sdchaos'
const IFACE = 'eth0'
/** An entry of `nft -j list counters` that is a named counter (the list holds other entries too). */
const isCounter = shape({ counter: shape({ name: isString, packets: isFiniteNumber }) })

/** Namespaces of earlier runs whose process is gone (killed with SIGKILL): deleted. */
export function deleteOrphanNamespaces(): string[] {
  const deleted: string[] = []
  const pattern = new RegExp(`^(${NETNS_PREFIX}-(\\d+)-[a-z0-9]+)\\b`)
  for (const line of sh('ip', ['netns', 'list']).split('\n')) {
    const m = pattern.exec(line)
    if (m && !running(Number(m[2]))) {
      spawnSync('ip', ['netns', 'del', m[1]!], { timeout: 10_000 })
      deleted.push(m[1]!)
    }
  }
  return deleted
}

/**
 * `count` hosts `sdc-<pid>-h<i>` at 10.77.0.<i + 1>/24 on the bridge of `sdc-<pid>-sw`, every node
 * on port `port`. The subnet can be the same for concurrent runs: each run's bridge is its own.
 */
export function createNetnsHosts(count: number, port = 7000): Hosts {
  deleteOrphanNamespaces()
  const base = `${NETNS_PREFIX}-${process.pid}`
  const hosts = Array.from({ length: count }, (_, i) => `${base}-h${i}`)
  const sw = `${base}-sw`
  const addresses = hosts.map((_, i) => `10.77.0.${i + 1}`)
  const made: string[] = []
  let destroyed = false
  const destroy = () => {
    if (destroyed) return
    destroyed = true
    for (const ns of made) spawnSync('ip', ['netns', 'del', ns], { timeout: 10_000 })
  }
  try {
    for (const ns of [sw, ...hosts]) {
      sh('ip', ['netns', 'add', ns])
      made.push(ns)
      sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up'])
    }
    sh('ip', ['-n', sw, 'link', 'add', 'br0', 'type', 'bridge'])
    sh('ip', ['-n', sw, 'link', 'set', 'br0', 'up'])
    hosts.forEach((ns, i) => {
      // Both ends are born inside their namespaces.
      sh('ip', [
        '-n',
        sw,
        'link',
        'add',
        `p${i}`,
        'type',
        'veth',
        'peer',
        'name',
        IFACE,
        'netns',
        ns,
      ])
      sh('ip', ['-n', sw, 'link', 'set', `p${i}`, 'master', 'br0'])
      sh('ip', ['-n', sw, 'link', 'set', `p${i}`, 'up'])
      sh('ip', ['-n', ns, 'addr', 'add', `${addresses[i]}/24`, 'dev', IFACE])
      sh('ip', ['-n', ns, 'link', 'set', IFACE, 'up'])
    })
  } catch (e) {
    destroy()
    throw e
  }

  // Per host: the addresses it is cut off from, and the loss; the counts of rules removed.
  const cutFrom = hosts.map(() => [] as string[])
  let loss = 0
  const counted = hosts.map(() => ({ cut: 0, loss: 0 }))
  const hasTable = hosts.map(() => false)

  const nft = (i: number, script: string, json = false) =>
    sh('ip', ['netns', 'exec', hosts[i]!, 'nft', ...(json ? ['-j'] : []), '-f', '-'], script)

  const live = (i: number) => {
    if (!hasTable[i]) return { cut: 0, loss: 0 }
    const out = sh('ip', [
      'netns',
      'exec',
      hosts[i]!,
      'nft',
      '-j',
      'list',
      'counters',
      'table',
      'netdev',
      TABLE,
    ])
    const doc: unknown = JSON.parse(out)
    if (!isRecord(doc) || !Array.isArray(doc.nftables))
      throw new Error(`nft list counters: no nftables list in ${out.slice(0, 200)}`)
    const counters = doc.nftables.filter(isCounter)
    const get = (name: string) =>
      counters.find((x) => x.counter.name === name)?.counter.packets ?? 0
    return { cut: get('cut'), loss: get('loss') }
  }

  const apply = (i: number) => {
    const before = live(i)
    counted[i]!.cut += before.cut
    counted[i]!.loss += before.loss
    // Declaring the table first makes the delete succeed whether it existed or not.
    let script = `table netdev ${TABLE}\ndelete table netdev ${TABLE}\n`
    const cut = cutFrom[i]!
    if (cut.length > 0 || loss > 0) {
      const set = `{ ${cut.join(', ')} }`
      script += `table netdev ${TABLE} {
  counter cut {}
  counter loss {}
  chain in {
    type filter hook ingress device "${IFACE}" priority filter; policy accept;
    ${cut.length > 0 ? `ip saddr ${set} counter name "cut" drop` : ''}
    ${loss > 0 ? `numgen random mod 100 < ${loss} counter name "loss" drop` : ''}
  }
  chain out {
    type filter hook egress device "${IFACE}" priority filter; policy accept;
    ${cut.length > 0 ? `ip daddr ${set} counter name "cut" drop` : ''}
  }
}
`
    }
    nft(i, script)
    hasTable[i] = cut.length > 0 || loss > 0
  }

  return {
    mode: 'netns',
    addresses,
    ports: hosts.map(() => port),
    namespaces: [sw, ...hosts],
    exec: (i) => ['ip', 'netns', 'exec', hosts[i]!],
    partition(minority) {
      const inside = new Set(minority)
      hosts.forEach((_, i) => {
        cutFrom[i] = inside.has(i) ? addresses.filter((_, j) => !inside.has(j)) : []
        apply(i)
      })
    },
    setLoss(percent) {
      if (!(Number.isInteger(percent) && percent >= 0 && percent <= 100)) {
        throw new RangeError(`loss ${percent}% out of range`)
      }
      loss = percent
      for (let i = 0; i < hosts.length; i++) apply(i)
    },
    heal() {
      loss = 0
      hosts.forEach((_, i) => {
        cutFrom[i] = []
        apply(i)
      })
    },
    drops: () =>
      hosts.map((_, i) => {
        const now = destroyed ? { cut: 0, loss: 0 } : live(i)
        return { cut: counted[i]!.cut + now.cut, loss: counted[i]!.loss + now.loss }
      }),
    destroy,
  }
}

/** Free UDP ports on loopback: bound to port 0, read, closed. */
export async function freeLoopbackPorts(n: number): Promise<number[]> {
  const ports: number[] = []
  const sockets = []
  // All held at once, so the kernel cannot hand the same port out twice.
  for (let i = 0; i < n; i++) {
    const socket = createSocket('udp4')
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
    ports.push(socket.address().port)
    sockets.push(socket)
  }
  for (const s of sockets) await new Promise<void>((resolve) => s.close(resolve))
  return ports
}

/** Every node on 127.0.0.1, each on a free port: no faults below the transport. */
export async function createLoopbackHosts(count: number): Promise<Hosts> {
  const ports = await freeLoopbackPorts(count)
  const unsupported = (what: string) => () => {
    throw new Error(`${what} needs network namespaces (run as root with ip and nft)`)
  }
  return {
    mode: 'loopback',
    addresses: ports.map(() => '127.0.0.1'),
    ports,
    namespaces: [],
    exec: () => [],
    partition: unsupported('a partition'),
    setLoss: unsupported('packet loss'),
    heal() {},
    drops: () => ports.map(() => ({ cut: 0, loss: 0 })),
    destroy() {},
  }
}
