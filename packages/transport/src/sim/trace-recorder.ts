import type { PartLocator } from '../compose/parts.js'
import type { NodeId } from '../ids.js'
import type { RuntimeObserver } from '../runtime/driver.js'
import type { StorageWrites } from '../storage/types.js'
import type { TraceEvent } from './trace.js'

/**
 * Where the network writes its trace. Off (`enabled` false), it keeps nothing and builds no
 * observer, so long runs and benchmarks pay nothing for it.
 */
export class TraceRecorder {
  private readonly recorded: TraceEvent[] | undefined

  /**
   * @param now the virtual time events are stamped with
   * @param locatorOf a node's part locator, to name the composed child behind an event
   */
  constructor(
    enabled: boolean,
    private readonly now: () => number,
    private readonly locatorOf: (node: NodeId) => PartLocator | undefined,
  ) {
    this.recorded = enabled ? [] : undefined
  }

  get enabled(): boolean {
    return this.recorded !== undefined
  }

  /** Forgets the events recorded after the first `length` (a checkpoint's load). */
  truncate(length: number): void {
    if (this.recorded !== undefined) this.recorded.length = length
  }

  /** The events recorded so far (empty when tracing is off). */
  get events(): readonly TraceEvent[] {
    return this.recorded ?? []
  }

  record(event: TraceEvent): void {
    this.recorded?.push(event)
  }

  /** A step's storage writes, committed or discarded by a planned crash. */
  recordWrites(node: NodeId, writes: StorageWrites, outcome: 'committed' | 'discarded'): void {
    if (!this.recorded) return
    const set: Record<string, unknown> = {}
    const deleted: string[] = []
    for (const [key, value] of writes) {
      if (value === undefined) deleted.push(key)
      else Object.defineProperty(set, key, { value, enumerable: true, writable: true })
    }
    this.record({ t: this.now(), type: 'storage', node, set, deleted, outcome })
  }

  /** The runtime hooks that record timers, requests and emitted events; none when tracing is off. */
  observer(): RuntimeObserver<unknown, unknown, unknown> {
    return this.recorded ? this.tracingObserver : {}
  }

  private locate<T>(id: NodeId, find: (locator: PartLocator) => T): T | undefined {
    const locator = this.locatorOf(id)
    return locator === undefined ? undefined : find(locator)
  }

  private readonly tracingObserver: RuntimeObserver<unknown, unknown, unknown> = {
    onTimerSet: (node, key, ms) =>
      this.record(
        withProto(
          { t: this.now(), type: 'timer-set', node, key, ms },
          this.locate(node, (l) => l.timer(key)),
        ),
      ),
    onTimerFire: (node, key) =>
      this.record(
        withProto(
          { t: this.now(), type: 'timer-fire', node, key },
          this.locate(node, (l) => l.timer(key)),
        ),
      ),
    onTimerCancel: (node, key) =>
      this.record(
        withProto(
          { t: this.now(), type: 'timer-cancel', node, key },
          this.locate(node, (l) => l.timer(key)),
        ),
      ),
    onRequest: (node, req) =>
      this.record(
        withProto(
          { t: this.now(), type: 'request', node, req },
          this.locate(node, (l) => l.request(req)),
        ),
      ),
    onEmit: (node, event) =>
      this.record(
        withProto(
          { t: this.now(), type: 'emit', node, event },
          this.locate(node, (l) => l.event(event)),
        ),
      ),
  }
}

/** The entry with `proto` when there is one: traces of plain protocols stay as they were. */
export function withProto<E extends TraceEvent>(event: E, proto: string | undefined): E {
  if (proto !== undefined) (event as { proto?: string }).proto = proto
  return event
}
