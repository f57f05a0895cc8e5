/**
 * Hosts in network namespaces on one bridge (itself in a namespace of its own), for tests and
 * benchmarks that need a real partition. Nothing is configured in the machine's own namespace:
 * the veth ends are born inside their namespaces, and deleting the namespaces deletes everything.
 * Needs Linux, root, `ip` (iproute2) and `nft` (nftables): see `netnsUnavailable`.
 *
 * A cut is a `netdev` table on the host's veth that drops at ingress and egress: silent both
 * ways, like a real partition (a drop in an `output` hook would make send() fail with EPERM).
 */
import { spawnSync } from 'node:child_process'
import { deleteNamespace, deleteOrphanNamespaces, run } from './netns.js'

/** Why namespaces cannot be used here, or undefined when they can. */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux'
  if (process.getuid?.() !== 0) return 'network namespaces need root'
  if (spawnSync('ip', ['-V']).status !== 0) return '`ip` (iproute2) is missing'
  if (spawnSync('nft', ['--version']).status !== 0) return '`nft` (nftables) is missing'
  return undefined
}

export interface NetnsHosts {
  /** The hosts' namespaces and their addresses, in the same order. */
  readonly hosts: readonly string[]
  readonly addresses: readonly string[]
  /** The command prefix that runs a program on host `index`. */
  exec(index: number): string[]
  /** Cuts host `index` off from every other, both directions. */
  cut(index: number): void
  /** Removes every cut. */
  heal(): void
  /**
   * Drops `percent` of the packets entering every host, at random (nftables `numgen`), silently;
   * 0 removes the rule. Independent of cuts.
   */
  loss(percent: number): void
  /** Deletes every namespace; idempotent and synchronous, so exit handlers can call it. */
  destroy(): void
}

const TABLE = 'sdcut'
const LOSS_TABLE = 'sdloss'

/**
 * `count` hosts `<tag>-<pid>-h<i>` at 10.<subnet>.0.<i + 1>/24 and the bridge `<tag>-<pid>-sw`.
 * `tag` is short (interface and namespace names are limited); `subnet` keeps concurrent users apart.
 */
export function createNetnsHosts(tag: string, count: number, subnet: number): NetnsHosts {
  deleteOrphanNamespaces(tag)
  const base = `${tag}-${process.pid}`
  const hosts = Array.from({ length: count }, (_, i) => `${base}-h${i}`)
  const sw = `${base}-sw`
  const addresses = hosts.map((_, i) => `10.${subnet}.0.${i + 1}`)
  let destroyed = false
  const destroy = () => {
    if (destroyed) return
    destroyed = true
    for (const ns of [...hosts, sw]) deleteNamespace(ns)
  }
  try {
    for (const ns of [...hosts, sw]) {
      run('ip', ['netns', 'add', ns])
      run('ip', ['-n', ns, 'link', 'set', 'lo', 'up'])
    }
    run('ip', ['-n', sw, 'link', 'add', 'br0', 'type', 'bridge'])
    run('ip', ['-n', sw, 'link', 'set', 'br0', 'up'])
    hosts.forEach((ns, i) => {
      const port = `p${i}`
      run('ip', [
        '-n',
        sw,
        'link',
        'add',
        port,
        'type',
        'veth',
        'peer',
        'name',
        'veth0',
        'netns',
        ns,
      ])
      run('ip', ['-n', ns, 'addr', 'add', `${addresses[i]}/24`, 'dev', 'veth0'])
      run('ip', ['-n', ns, 'link', 'set', 'veth0', 'up'])
      run('ip', ['-n', sw, 'link', 'set', port, 'master', 'br0'])
      run('ip', ['-n', sw, 'link', 'set', port, 'up'])
    })
  } catch (e) {
    destroy()
    throw e
  }
  const nft = (index: number, script: string) =>
    run('ip', ['netns', 'exec', hosts[index]!, 'nft', '-f', '-'], script)
  return {
    hosts,
    addresses,
    exec: (index) => ['ip', 'netns', 'exec', hosts[index]!],
    cut(index) {
      nft(
        index,
        `table netdev ${TABLE} {
  chain in { type filter hook ingress device "veth0" priority filter; policy drop; }
  chain out { type filter hook egress device "veth0" priority filter; policy drop; }
}
`,
      )
    },
    heal() {
      // Declaring the table first makes the delete succeed whether it existed or not.
      for (let i = 0; i < hosts.length; i++)
        nft(i, `table netdev ${TABLE}\ndelete table netdev ${TABLE}\n`)
    },
    loss(percent) {
      if (!(percent >= 0 && percent <= 100)) throw new RangeError(`loss ${percent}% out of range`)
      const rule = percent > 0 ? `numgen random mod 10000 < ${Math.round(percent * 100)} drop` : ''
      for (let i = 0; i < hosts.length; i++) {
        nft(
          i,
          `table netdev ${LOSS_TABLE}
delete table netdev ${LOSS_TABLE}
table netdev ${LOSS_TABLE} {
  chain in {
    type filter hook ingress device "veth0" priority filter; policy accept;
    ${rule}
  }
}
`,
        )
      }
    },
    destroy,
  }
}
