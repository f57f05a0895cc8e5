import type { DropReason } from './trace.js'

export interface SimStats {
  sent: number
  delivered: number
  duplicated: number
  dropped: Record<DropReason, number>
  /** Sent messages by their `type` field. */
  byType: Record<string, number>
  timersFired: number
  events: number
}

export function emptyStats(): SimStats {
  return {
    sent: 0,
    delivered: 0,
    duplicated: 0,
    dropped: {
      loss: 0,
      partition: 0,
      'receiver-crashed': 0,
      'receiver-closed': 0,
      'sender-crashed': 0,
    },
    byType: {},
    timersFired: 0,
    events: 0,
  }
}
