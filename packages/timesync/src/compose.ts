import { type AnyProtocol, type ComposedProtocol, compose, type NodeId } from '@sd/transport'
import { DisciplinedClock, type DisciplinePolicy } from './clock/disciplined.js'

/**
 * Runs `sync` (Cristian, Berkeley, NTP) and `app` (e.g. temporal order) on one node over one
 * software clock: what `sync` corrects, `app` reads. Every protocol factory of this package takes
 * the clock as its second argument. Composed with `compose` of @sd/transport, so events, messages
 * and requests carry the child's name (`sync` or `app`). A restarted node gets a fresh clock, as
 * a rebooted machine does.
 */
export function onSharedClock<Sync extends AnyProtocol, App extends AnyProtocol>(
  children: {
    sync: (self: NodeId, clock: DisciplinedClock) => Sync
    app: (self: NodeId, clock: DisciplinedClock) => App
  },
  discipline?: DisciplinePolicy,
): (self: NodeId) => ComposedProtocol<{ sync: Sync; app: App }> {
  return (self) => {
    const clock = new DisciplinedClock(discipline)
    return compose({ sync: children.sync(self, clock), app: children.app(self, clock) })
  }
}
