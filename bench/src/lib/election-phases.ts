/**
 * A failover broken down from the protocol's own events (ours only; node-discover has none): when
 * the survivors' detectors gave up the dead leader, how long the winner's election took from its
 * own suspicion to its claim, and how long the other survivor took to follow it.
 */
import type { Mark } from './election-protocol.js'

export interface FailoverPhases {
  /** From the SIGKILL to the first survivor's `leader-lost` (its detector suspected the leader). */
  firstSuspectMs?: number
  /** ... to the last survivor's `leader-lost`. */
  lastSuspectMs?: number
  /** ... to the new leader's own `leader-lost`. */
  winnerSuspectMs?: number
  /** From the new leader's suspicion to its `leader` event naming itself: the election. */
  electionMs?: number
  /** From that claim to both survivors following it (the failover's end): the acceptance. */
  acceptMs?: number
  /** `election-started` / `candidate` / `ok` events of the survivors, ms after the kill, in order. */
  steps: string[]
}

const round1 = (x: number) => Math.round(x * 10) / 10

export function failoverPhases(
  marks: readonly Mark[],
  killedAt: number,
  survivors: readonly string[],
  newLeader: string | undefined,
  failoverMs: number | undefined,
): FailoverPhases {
  const after = marks
    .filter((m) => m.at >= killedAt && survivors.includes(m.id))
    .sort((a, b) => a.at - b.at)
  const since = (m: Mark | undefined) => (m === undefined ? undefined : round1(m.at - killedAt))
  const lost = survivors.map((id) => after.find((m) => m.id === id && m.type === 'leader-lost'))
  const lostAt = lost.flatMap((m) => (m ? [m.at - killedAt] : []))
  const winnerLost = after.find((m) => m.id === newLeader && m.type === 'leader-lost')
  const claim = after.find(
    (m) => m.id === newLeader && m.type === 'leader' && m.leader === newLeader,
  )
  const claimMs = since(claim)
  return {
    firstSuspectMs: lostAt.length > 0 ? round1(Math.min(...lostAt)) : undefined,
    lastSuspectMs: lostAt.length === survivors.length ? round1(Math.max(...lostAt)) : undefined,
    winnerSuspectMs: since(winnerLost),
    electionMs: claim && winnerLost ? round1(claim.at - winnerLost.at) : undefined,
    acceptMs:
      claimMs !== undefined && failoverMs !== undefined ? round1(failoverMs - claimMs) : undefined,
    steps: after
      .filter((m) => m.type !== 'leader-lost')
      .map((m) => `${since(m)} ${m.id} ${m.type}${m.leader ? ` ${m.leader}` : ''}`),
  }
}
