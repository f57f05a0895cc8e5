/** The command line of `pnpm cluster`: pure parsing, checked ranges, and the usage text. */
import { oneOf } from '@sd/transport'

export const CHAOS_KINDS = [
  'kill-leader',
  'kill-holder',
  'kill-random',
  'pause-leader',
  'pause-holder',
  'clock-step',
  'loss',
  'partition',
] as const
export type ChaosKind = (typeof CHAOS_KINDS)[number]
const isChaosKind = oneOf(...CHAOS_KINDS)

/** Faults that need nftables inside network namespaces. */
export const NETNS_ONLY: ReadonlySet<ChaosKind> = new Set(['partition', 'loss'])

export interface Options {
  n: number
  seconds: number
  chaos: ChaosKind[]
  /** Percentage of packets dropped during the `loss` fault. */
  lossPercent: number
  /** How long a fault lasts: a killed node's down time, a partition, the loss window (ms). */
  faultMs: number
  /** How many times the list of faults is played; 0: again and again while time is left. */
  rounds: number
  /** Each round plays the faults in a seeded random order. */
  shuffle: boolean
  /** How far the clock-step fault steps a node's wall clock (ms, either way). */
  stepMs: number
  /** Where to write the operations' history (JSON lines). */
  history: string | undefined
  mode: 'auto' | 'netns' | 'loopback'
  json: boolean
  plain: boolean
  trace: string | undefined
  seed: number
  keep: boolean
  help: boolean
}

export const DEFAULTS: Options = {
  n: 3,
  seconds: 20,
  chaos: [...CHAOS_KINDS],
  lossPercent: 10,
  faultMs: 2500,
  rounds: 0,
  shuffle: false,
  stepMs: 2000,
  history: undefined,
  mode: 'auto',
  json: false,
  plain: false,
  trace: undefined,
  seed: 0,
  keep: false,
  help: false,
}

export class UsageError extends Error {
  override name = 'UsageError'
}

export const USAGE = `pnpm cluster [-- options]

Starts N node processes over UDP (each in its own network namespace when run as root with ip and
nft, on loopback ports otherwise), each running one composed protocol: majority election, a lock
whose coordinator is the leader (fencing tokens led by the term), Berkeley time sync led by the
leader, durable state in a file per node. Every node adds 1 to a fenced counter under the lock,
again and again, while scripted faults hit the cluster; a live table shows each node, and a summary
checks the counter against the acknowledged increments and looks for safety violations.

Options:
  --n N             nodes, 3..9 (default 3)
  --seconds S       length of the workload, 5..600 (default 20)
  --chaos LIST      faults, in order, comma-separated, or none (default: all of them)
                      kill-leader   SIGKILL the leader, restart it after --fault-ms (same state file)
                      kill-holder   SIGKILL the lock holder inside its critical section, restart it
                      kill-random   SIGKILL a node picked at random (seeded), restart it
                      pause-leader  SIGSTOP the leader (the lock's coordinator) past its leases, then
                                    SIGCONT: it must not act on its old term when it wakes up
                      pause-holder  SIGSTOP the holder inside its critical section past its lease,
                                    then SIGCONT: its late write must be refused (fencing)
                      clock-step    step the wall clock of the leader or of a random node by
                                    --step-ms (either way) for --fault-ms, then step it back; the
                                    node's monotonic clock (leases, timeouts) goes on unstepped
                      loss          drop --loss percent of the packets entering every node (nft)
                                    for --fault-ms, while the next faults go on
                      partition     cut a minority (with the leader) off with nft drop rules, heal
                    partition and loss need network namespaces: skipped with a notice on loopback
  --loss P          percent of packets lost during the loss fault, 1..50 (default 10)
  --fault-ms MS     how long each fault lasts, 500..6000 (default 2500)
  --rounds R        play the list of faults R times, 1..100 (default: again and again while the
                    run has time for the next fault)
  --shuffle         each round plays the faults in a random order (seeded by --seed)
  --step-ms MS      how far clock-step steps a wall clock, 1..60000 (default 2000)
  --history FILE    write every operation (acquire, read, write, release) with its invocation
                    and completion times and outcome, as JSON lines
  --netns           require network namespaces (fail without root, ip or nft)
  --loopback        loopback ports, no namespaces
  --json            print only the summary, as one JSON object (progress goes to stderr)
  --plain           plain lines instead of the refreshing table (the default when not a TTY)
  --trace FILE      write a trace of the run (sd-trace format) for a viewer, with the
                    history's linearizability verdicts (historyCheck)
  --seed N          seed for the clock skews (default: random)
  --keep            keep the run directory (node state files, counter file)
  --help            this text

Exit status: 0 when every check held, 1 on a safety violation, 2 on a usage error, 3 when the
cluster could not run.

The Jepsen-style test (fresh clusters, a random nemesis, every run judged; see jepsen --help):
  pnpm cluster -- jepsen --rounds 10 --seconds 30 --nemesis all
Judge a trace written with --trace again, with the global checks alone:
  pnpm cluster -- check FILE
Judge a history written with --history for linearizability (register, lock), and with the
run's trace write that trace with the verdicts for the visualizer:
  pnpm --silent cluster -- check-history FILE [--json] [--trace TRACE --out FILE]`

const integer = (name: string, text: string | undefined, min: number, max: number): number => {
  if (text === undefined || !/^-?\d+$/.test(text)) {
    throw new UsageError(
      `${name} needs a whole number, got ${text === undefined ? 'nothing' : JSON.stringify(text)}`,
    )
  }
  const value = Number(text)
  if (value < min || value > max)
    throw new UsageError(`${name} must be in ${min}..${max}, got ${value}`)
  return value
}

export function parseChaos(text: string): ChaosKind[] {
  if (text === 'none' || text === '') return []
  if (text === 'all') return [...CHAOS_KINDS]
  const kinds: ChaosKind[] = []
  for (const k of text.split(',').map((k) => k.trim())) {
    if (!isChaosKind(k)) {
      throw new UsageError(
        `unknown fault ${JSON.stringify(k)} (known: ${CHAOS_KINDS.join(', ')}, none)`,
      )
    }
    kinds.push(k)
  }
  return kinds
}

/** Parses argv (without node and the script); throws UsageError. */
export function parseArgs(argv: readonly string[], random: () => number = Math.random): Options {
  const o: Options = { ...DEFAULTS, chaos: [...DEFAULTS.chaos] }
  let seedGiven = false
  const args = [...argv]
  while (args.length > 0) {
    let arg = args.shift()!
    if (arg === '--') continue
    let inline: string | undefined
    const eq = arg.indexOf('=')
    if (arg.startsWith('--') && eq > 0) {
      inline = arg.slice(eq + 1)
      arg = arg.slice(0, eq)
    }
    const value = () => {
      const v = inline ?? args.shift()
      if (v === undefined || (inline === undefined && v.startsWith('--'))) {
        throw new UsageError(`${arg} needs a value`)
      }
      return v
    }
    const flag = () => {
      if (inline !== undefined) throw new UsageError(`${arg} takes no value`)
    }
    switch (arg) {
      case '--n':
        o.n = integer('--n', value(), 3, 9)
        break
      case '--seconds':
        o.seconds = integer('--seconds', value(), 5, 600)
        break
      case '--chaos':
        o.chaos = parseChaos(value())
        break
      case '--loss':
        o.lossPercent = integer('--loss', value(), 1, 50)
        break
      case '--fault-ms':
        o.faultMs = integer('--fault-ms', value(), 500, 6000)
        break
      case '--rounds':
        o.rounds = integer('--rounds', value(), 1, 100)
        break
      case '--shuffle':
        flag()
        o.shuffle = true
        break
      case '--step-ms':
        o.stepMs = integer('--step-ms', value(), 1, 60_000)
        break
      case '--history':
        o.history = value()
        break
      case '--netns':
        flag()
        o.mode = 'netns'
        break
      case '--loopback':
        flag()
        o.mode = 'loopback'
        break
      case '--json':
        flag()
        o.json = true
        break
      case '--plain':
        flag()
        o.plain = true
        break
      case '--trace':
        o.trace = value()
        break
      case '--seed':
        o.seed = integer('--seed', value(), 0, 2 ** 31 - 1)
        seedGiven = true
        break
      case '--keep':
        flag()
        o.keep = true
        break
      case '--help':
      case '-h':
        flag()
        o.help = true
        break
      default:
        throw new UsageError(`unknown option ${JSON.stringify(arg)} (see --help)`)
    }
  }
  if (!seedGiven) o.seed = Math.floor(random() * 2 ** 31)
  return o
}
