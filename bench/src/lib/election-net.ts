/**
 * Three hosts in network namespaces on one bridge (itself in a namespace of its own), and a
 * partition that cuts one host off in both directions. Nothing is configured in the host's
 * namespace: the veth ends are born inside their namespaces, and deleting the namespaces deletes
 * everything. Needs root, `ip` (iproute2) and `nft` (nftables), see `netnsUnavailable`.
 *
 * The cut is a `netdev` table on the host's veth, dropping at its ingress and egress hooks: silent
 * both ways, as a real partition. (A drop in the `output` hook of an `inet` table, like iptables'
 * OUTPUT, makes `send()` fail with EPERM instead, which no real network does.)
 */
import { spawnSync } from 'node:child_process'

const table = 'sdcut'

export interface ElectionNet {
  /** The three hosts' namespaces and addresses, in the same order. */
  readonly hosts: readonly string[]
  readonly addresses: readonly string[]
  /** Cuts host `index` off from the others, both directions. */
  cut(index: number): void
  /** Removes every cut. */
  heal(): void
  /** Deletes all four namespaces; idempotent, synchronous so that exit handlers can call it. */
  destroy(): void
}

function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { input, encoding: 'utf8', timeout: 10_000 })
  if (result.status !== 0) {
    const why = result.error?.message ?? result.stderr.trim()
    throw new Error(`${command} ${args.join(' ')}: ${why}`)
  }
  return result.stdout
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const namePattern = /^(sd-el-(\d+)-(?:a|b|c|sw))\b/

/** Deletes namespaces left behind by benchmark processes that died without cleaning up (SIGKILL). */
function deleteOrphans(): void {
  for (const line of run('ip', ['netns', 'list']).split('\n')) {
    const match = namePattern.exec(line)
    if (match && !isAlive(Number(match[2]))) spawnSync('ip', ['netns', 'del', match[1]!])
  }
}

/**
 * Creates `sd-el-<pid>-a`, `-b`, `-c` (10.211.0.1 to .3/24) and the bridge's `sd-el-<pid>-sw`.
 * Takes about half a second.
 */
export function createElectionNet(): ElectionNet {
  deleteOrphans()
  const base = `sd-el-${process.pid}`
  const letters = ['a', 'b', 'c'] as const
  const hosts = letters.map((l) => `${base}-${l}`)
  const sw = `${base}-sw`
  const addresses = letters.map((_, i) => `10.211.0.${i + 1}`)
  // Interface names are limited to 15 bytes; each is created inside its namespace.
  const hostLink = 'veth0'
  const portLink = (i: number) => `p-${letters[i]}`
  let destroyed = false
  const destroy = () => {
    if (destroyed) return
    destroyed = true
    for (const ns of [...hosts, sw]) spawnSync('ip', ['netns', 'del', ns], { timeout: 10_000 })
  }
  try {
    for (const ns of [...hosts, sw]) {
      run('ip', ['netns', 'add', ns])
      run('ip', ['-n', ns, 'link', 'set', 'lo', 'up'])
    }
    run('ip', ['-n', sw, 'link', 'add', 'br0', 'type', 'bridge'])
    run('ip', ['-n', sw, 'link', 'set', 'br0', 'up'])
    hosts.forEach((ns, i) => {
      // `ip -n sw link add`: both ends are born in the bridge's namespace, one then moves.
      run(
        'ip',
        `-n ${sw} link add ${portLink(i)} type veth peer name ${hostLink} netns ${ns}`.split(' '),
      )
      run('ip', ['-n', ns, 'addr', 'add', `${addresses[i]}/24`, 'dev', hostLink])
      run('ip', ['-n', ns, 'link', 'set', hostLink, 'up'])
      run('ip', ['-n', sw, 'link', 'set', portLink(i), 'master', 'br0'])
      run('ip', ['-n', sw, 'link', 'set', portLink(i), 'up'])
    })
  } catch (e) {
    destroy()
    throw e
  }

  const cut = (index: number) => {
    const ns = hosts[index]
    if (ns === undefined) throw new RangeError(`no host ${index}`)
    const script = `table netdev ${table} {
  chain in { type filter hook ingress device "${hostLink}" priority filter; policy drop; }
  chain out { type filter hook egress device "${hostLink}" priority filter; policy drop; }
}
`
    run('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], script)
  }

  const heal = () => {
    for (const ns of hosts) {
      // Declaring the table first makes `delete` succeed whether it existed or not.
      run(
        'ip',
        ['netns', 'exec', ns, 'nft', '-f', '-'],
        `table netdev ${table}\ndelete table netdev ${table}\n`,
      )
    }
  }

  return { hosts, addresses, cut, heal, destroy }
}
