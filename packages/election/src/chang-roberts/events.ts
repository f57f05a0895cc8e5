import type { NodeId } from '@sd/transport'
import type { ElectionEvent } from '../contract.js'

export type ChangRobertsEvent = ElectionEvent | { type: 'ignored'; from: NodeId; reason: string }
