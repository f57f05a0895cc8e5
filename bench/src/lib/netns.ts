/**
 * A pair of network namespaces joined by a veth pair, with kernel packet loss from nftables.
 * Nothing is configured outside the two namespaces: the veth ends are created inside them, and
 * deleting the namespaces deletes everything. Needs root, `ip` (iproute2) and `nft` (nftables).
 */
import { spawnSync } from 'node:child_process'
import { isAlive } from '../../../test-support/processes.js'

const prefix = 'sd-gp-'
const table = 'sdloss'

export interface PacketCounts {
  /** Packets that reached the input hook (loopback excepted). */
  seen: number
  /** Those the loss rule dropped. */
  dropped: number
}

export interface NetnsPair {
  readonly names: readonly [string, string]
  readonly addresses: readonly [string, string]
  /** Drops `percent` of incoming packets in both namespaces (data and acknowledgements alike). */
  setLoss(percent: number): void
  /** Counters of both namespaces added up, since the last `setLoss`. */
  counts(): PacketCounts
  /** Deletes both namespaces; idempotent, synchronous so that exit handlers can call it. */
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

const inNs = (ns: string, command: string, args: string[], input?: string) =>
  run('ip', ['netns', 'exec', ns, command, ...args], input)

/** Deletes pairs left behind by benchmark processes that died without cleaning up (e.g. SIGKILL). */
function deleteOrphans(): void {
  for (const line of run('ip', ['netns', 'list']).split('\n')) {
    const match = /^(sd-gp-(\d+)-[ab])\b/.exec(line)
    if (match && !isAlive(Number(match[2]))) spawnSync('ip', ['netns', 'del', match[1]!])
  }
}

/**
 * Creates `sd-gp-<pid>-a` (first address) and `sd-gp-<pid>-b` (second address), `/24` apart on
 * one veth pair, with no loss yet. Takes about 0.3 s.
 */
export function createNetnsPair(
  addresses: readonly [string, string] = ['10.210.0.1', '10.210.0.2'],
): NetnsPair {
  deleteOrphans()
  const names = [`${prefix}${process.pid}-a`, `${prefix}${process.pid}-b`] as const
  // Interface names are limited to 15 bytes.
  const links = [`sdgp${process.pid}a`, `sdgp${process.pid}b`] as const
  let destroyed = false
  const destroy = () => {
    if (destroyed) return
    destroyed = true
    for (const ns of names) spawnSync('ip', ['netns', 'del', ns], { timeout: 10_000 })
  }
  try {
    for (const ns of names) run('ip', ['netns', 'add', ns])
    // Both ends are born inside their namespaces: nothing appears in the host's, even briefly.
    const ends = links.map((link, i) => `${link} netns ${names[i]}`)
    run('ip', `link add ${ends[0]} type veth peer name ${ends[1]}`.split(' '))
    for (const i of [0, 1] as const) {
      const ns = names[i]
      run('ip', ['-n', ns, 'addr', 'add', `${addresses[i]}/24`, 'dev', links[i]])
      // One packet per skb: without segmentation offload TCP would hand the veth 64 KiB
      // super-packets, and one drop would cost it dozens of segments at once.
      run('ip', ['-n', ns, 'link', 'set', links[i], 'gso_max_segs', '1', 'gso_max_size', '1500'])
      run('ip', ['-n', ns, 'link', 'set', links[i], 'up'])
      run('ip', ['-n', ns, 'link', 'set', 'lo', 'up'])
    }
  } catch (e) {
    destroy()
    throw e
  }

  const setLoss = (percent: number) => {
    if (!(percent >= 0 && percent <= 100)) throw new RangeError(`loss ${percent}% out of range`)
    // numgen draws per packet; basis points allow fractional percentages.
    const basisPoints = Math.round(percent * 100)
    const drop =
      basisPoints > 0 ? `numgen random mod 10000 < ${basisPoints} counter name "dropped" drop` : ''
    // Declaring the table first makes `delete` succeed whether it existed or not.
    const script = `table inet ${table}
delete table inet ${table}
table inet ${table} {
  counter seen {}
  counter dropped {}
  chain in {
    type filter hook input priority filter; policy accept;
    iifname "lo" accept
    counter name "seen"
    ${drop}
  }
}
`
    for (const ns of names) inNs(ns, 'nft', ['-f', '-'], script)
  }

  const counts = (): PacketCounts => {
    const total = { seen: 0, dropped: 0 }
    for (const ns of names) {
      const listing = JSON.parse(inNs(ns, 'nft', ['-j', 'list', 'table', 'inet', table])) as {
        nftables: Array<{ counter?: { name: string; packets: number } }>
      }
      for (const item of listing.nftables) {
        if (item.counter?.name === 'seen') total.seen += item.counter.packets
        if (item.counter?.name === 'dropped') total.dropped += item.counter.packets
      }
    }
    return total
  }

  return { names, addresses, setLoss, counts, destroy }
}
