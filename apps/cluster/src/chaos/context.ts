/** What a fault of the chaos script reaches of the run: the cluster, its processes, its network. */
import type { FaultEvent } from '@sd/transport'
import type { Options } from '../args.js'
import type { ClusterState } from '../cluster-state.js'
import type { Hosts } from '../hosts.js'
import type { FaultRecord } from '../summary.js'
import type { Supervisor } from '../supervisor.js'
import { machineNow } from '../wire.js'
import type { HolderTrap } from './holder-trap.js'

/** Bound on the wait for a leader before a fault that needs one. */
export const SETTLE_TIMEOUT_MS = 8_000

/** The faults the network is under now (namespace mode). */
export class NetworkFaults {
  /** The nodes cut off by the partition under way. */
  readonly cut = new Set<string>()
  lossOn = false
  lossEnds: ReturnType<typeof setTimeout> | undefined

  /**
   * The run stops: the loss under way ends (its record too), the cut heals, and with `hadLoss`
   * (loss was in the script) every rule goes, whatever is on.
   */
  end(
    hosts: Hosts,
    hadLoss: boolean,
    faults: FaultRecord[],
    recordFault: (f: FaultEvent) => void,
  ): void {
    clearTimeout(this.lossEnds)
    if (this.lossOn) {
      this.lossOn = false
      const loss = faults.find(
        (f) => f.kind === 'loss' && f.t !== undefined && f.until === undefined,
      )
      if (loss) loss.until = machineNow()
      recordFault({ t: machineNow(), type: 'loss', percent: 0 })
    }
    if (this.cut.size > 0) recordFault({ t: machineNow(), type: 'heal' })
    if (this.cut.size > 0 || hadLoss) hosts.heal()
    this.cut.clear()
  }
}

export interface ChaosContext {
  readonly o: Options
  readonly hosts: Hosts
  readonly cluster: ClusterState
  readonly supervisor: Supervisor
  readonly network: NetworkFaults
  readonly trap: HolderTrap
  /** Seeded choices of the nemesis (which node, which way a clock steps, the order of faults). */
  random(): number
  /** A line of the run's log. */
  note(text: string): void
  /** What the chaos script does now, for the table. */
  status(text: string): void
  /** A fault as the checkers and the trace take it. */
  recordFault(f: FaultEvent): void
  /** The newest fencing token the store has seen. */
  newestToken(): number
}

/** One fault of the script: it fills in `record` (when, whom), or says why it was skipped. */
export type Fault = (ctx: ChaosContext, record: FaultRecord, pauseMs: number) => Promise<void>
