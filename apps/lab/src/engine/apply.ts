/**
 * A step carried out on the simulator, as `sd check`'s replay does for its words (a message
 * chosen happens now, a timed pause resumes by a planned action) and with the simulator's own
 * calls for the lab's faults. False when the step no longer applies (its event is not pending,
 * the node is already down): the run records it as skipped, as `replay` does.
 */
import { InvalidArgumentError, type NodeId, type SimNetwork } from '@sd/transport'
import type { Step } from './steps.js'

/** A cut link loses everything; a mended one nothing (the scenario's own loss is not restored). */
const CUT = { loss: 1 }
const MENDED = { loss: 0 }

export function applyStep(net: SimNetwork, step: Step, ids: ReadonlyMap<string, NodeId>): boolean {
  const node = (text: string): NodeId | undefined => ids.get(text)
  switch (step.kind) {
    case 'auto':
      throw new Error('auto is the run\u2019s own rule, not a step to apply')
    case 'happen':
      return net.take(step.key, 'happen')
    case 'drop':
    case 'dup':
      try {
        return net.take(step.key, step.kind === 'drop' ? 'drop' : 'duplicate')
      } catch (e) {
        // Only a message can be lost or copied: a timer's key names nothing to drop.
        if (e instanceof InvalidArgumentError) return false
        throw e
      }
    case 'crash': {
      const id = node(step.node)
      if (id === undefined || net.isCrashed(id)) return false
      net.crash(id)
      return true
    }
    case 'restart': {
      const id = node(step.node)
      if (id === undefined || !net.isCrashed(id)) return false
      net.restart(id)
      return true
    }
    case 'pause': {
      const id = node(step.node)
      if (id === undefined || net.isCrashed(id) || net.isPaused(id) || !(step.ms >= 0)) return false
      net.pause(id)
      net.at(net.now + step.ms, () => net.resume(id))
      return true
    }
    case 'hold': {
      const id = node(step.node)
      if (id === undefined || net.isCrashed(id) || net.isPaused(id)) return false
      net.pause(id)
      return true
    }
    case 'resume': {
      const id = node(step.node)
      if (id === undefined || !net.isPaused(id)) return false
      net.resume(id)
      return true
    }
    case 'clock': {
      const id = node(step.node)
      if (id === undefined || net.isCrashed(id)) return false
      net.stepClock(id, step.deltaMs)
      return true
    }
    case 'cut':
    case 'mend': {
      const a = node(step.a)
      const b = node(step.b)
      if (a === undefined || b === undefined || a === b) return false
      net.setLink(a, b, step.kind === 'cut' ? CUT : MENDED)
      return true
    }
    case 'part': {
      const groups = step.groups.map((g) => g.map(node))
      const flat = groups.flat()
      if (flat.some((id) => id === undefined) || new Set(flat).size !== flat.length) return false
      net.partition(...(groups as NodeId[][]))
      return true
    }
    case 'heal':
      net.heal()
      return true
  }
}
