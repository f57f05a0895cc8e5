/**
 * One failover trial (the leader's process is SIGKILLed) and one partition trial (a host is cut
 * off for a while, then healed), each on a fresh group of three nodes.
 */

import type { NetnsHosts } from '../../../test-support/netns-hosts.js'
import { type Group, ids, sleep, type Trial } from './election-group.js'
import { type FailoverPhases, failoverPhases } from './election-phases.js'
import { type Contender, type ElectionSettings, nowMs } from './election-protocol.js'
import {
  agreedLeader,
  divergent,
  firstTime,
  type State,
  totalMs,
  twoLeaders,
} from './election-timeline.js'

export interface TrialTiming {
  settings: ElectionSettings
  /** How long the first agreement must hold before the trial acts. */
  settleMs: number
  /** The longest wait for an agreement (at the start, after the kill, after the heal). */
  agreeTimeoutMs: number
}

const all: string[] = [...ids]
const agreed = (among: readonly string[]) => (s: State) => agreedLeader(s, among) !== undefined

export interface FailoverRun {
  contender: Contender
  ok: boolean
  error?: string
  /** From the SIGKILL to the instant every survivor follows the same new leader. */
  failoverMs?: number
  /** From the SIGKILL to the first survivor that believes itself leader. */
  firstClaimMs?: number
  oldLeader?: string
  newLeader?: string
  newTerm?: number
  /** Time during which both survivors believed themselves leader (from the kill to the agreement). */
  twoLeadersMs?: number
  /** The survivors' agreement did not hold for `settleMs` after it was reached. */
  flapped?: boolean
  /** Ours: detection, election and acceptance, from the protocol's events. */
  phases?: FailoverPhases
}

export async function failoverTrial(
  group: Group,
  contender: Contender,
  trial: number,
  timing: TrialTiming,
): Promise<FailoverRun> {
  const started = await group.start(trial, contender, timing.settings)
  if (typeof started === 'string') return { contender, ok: false, error: started }
  const record: Trial = started
  try {
    if (!(await record.settled(agreed(all), timing.settleMs, timing.agreeTimeoutMs))) {
      return { contender, ok: false, error: 'no first agreement' }
    }
    const oldLeader = agreedLeader(record.state, all)!
    const index = all.indexOf(oldLeader)
    const survivors = all.filter((id) => id !== oldLeader)
    const killedAt = nowMs()
    await group.kill(index)
    const ok = await record.until(agreed(survivors), timing.agreeTimeoutMs)
    const end = nowMs()
    const views = record.views.filter((v) => v.id !== oldLeader)
    const twoLeadersMs = totalMs(views, killedAt, end, (s) => twoLeaders(s, survivors))
    const claimed = firstTime(views, killedAt, end + 1, (s) =>
      survivors.some((id) => s.get(id)?.self),
    )
    const run: FailoverRun = {
      contender,
      ok,
      oldLeader,
      twoLeadersMs,
      firstClaimMs: claimed === undefined ? undefined : claimed - killedAt,
    }
    if (!ok) return { ...run, error: 'survivors did not agree on a new leader' }
    const agreedAt = firstTime(views, killedAt, end + 1, agreed(survivors))!
    const newLeader = agreedLeader(record.state, survivors)!
    await sleep(timing.settleMs)
    const failoverMs = agreedAt - killedAt
    const ours = record.marks.length > 0
    return {
      ...run,
      failoverMs,
      ...(ours && {
        phases: failoverPhases(record.marks, killedAt, survivors, newLeader, failoverMs),
      }),
      newLeader,
      newTerm: record.state.get(newLeader)?.term,
      flapped: agreedLeader(record.state, survivors) !== newLeader,
    }
  } finally {
    await group.teardown(record)
  }
}

export interface PartitionRun {
  contender: Contender
  ok: boolean
  error?: string
  /** The node cut off, and whether it led when it was cut. */
  cut?: string
  cutWasLeader?: boolean
  /** From the cut to the end of the trial (agreement after the heal): two nodes believed themselves leader. */
  twoLeadersMs?: number
  /** The same span: nodes followed two different leaders. */
  divergentMs?: number
  /** At the heal, both nodes of the majority side followed one of them, which believed it led. */
  majorityLeaderAtHeal?: boolean
  /** During the partition, how long the majority side had no such leader. */
  majorityLeaderlessMs?: number
  /** At the heal, the cut-off node still believed itself leader. */
  minorityLeaderAtHeal?: boolean
  /** A cut-off leader: from the cut to its stepping down (undefined if it led until the heal). */
  stepDownMs?: number
  /** From the heal to the agreement of all three (undefined if they did not agree in time). */
  healMs?: number
}

export interface PartitionTiming extends TrialTiming {
  partitionMs: number
  /** Which node to cut off: the leader (the hard case) or a follower. */
  cut: 'leader' | 'follower'
}

export async function partitionTrial(
  group: Group,
  net: NetnsHosts,
  contender: Contender,
  trial: number,
  timing: PartitionTiming,
): Promise<PartitionRun> {
  const started = await group.start(trial, contender, timing.settings)
  if (typeof started === 'string') return { contender, ok: false, error: started }
  const record: Trial = started
  let cutIndex: number | undefined
  try {
    if (!(await record.settled(agreed(all), timing.settleMs, timing.agreeTimeoutMs))) {
      return { contender, ok: false, error: 'no first agreement' }
    }
    const leader = agreedLeader(record.state, all)!
    const cut =
      timing.cut === 'leader' ? leader : (all.filter((id) => id !== leader)[trial % 2] ?? leader)
    cutIndex = all.indexOf(cut)
    const majority = all.filter((id) => id !== cut)
    // The rule is in place from the end of `cut` to the start of `heal`: that is the partition
    // the majority side is judged on. Two leaders are counted from the start of `cut`.
    const cutStart = nowMs()
    net.cut(cutIndex)
    const cutAt = nowMs()
    await sleep(timing.partitionMs)
    const healedAt = nowMs()
    net.heal()
    cutIndex = undefined
    const ok = await record.until(agreed(all), timing.agreeTimeoutMs)
    const end = nowMs()
    const { views } = record
    const agreedAt = ok ? firstTime(views, healedAt, end + 1, agreed(all)) : undefined
    const atHeal = stateAt(record, healedAt)
    const steppedDown = firstTime(views, cutAt, healedAt, (s) => s.get(cut)?.self !== true)
    const since = (from: number, at: number | undefined) =>
      at === undefined ? undefined : Math.max(0, at - from)
    return {
      contender,
      ok,
      error: ok ? undefined : 'no agreement after the heal',
      cut,
      cutWasLeader: cut === leader,
      twoLeadersMs: totalMs(views, cutStart, end, (s) => twoLeaders(s, all)),
      divergentMs: totalMs(views, cutStart, end, (s) => divergent(s, all)),
      majorityLeaderAtHeal: agreedLeader(atHeal, majority) !== undefined,
      majorityLeaderlessMs: totalMs(views, cutAt, healedAt, (s) => !agreed(majority)(s)),
      minorityLeaderAtHeal: atHeal.get(cut)?.self === true,
      stepDownMs: cut === leader ? since(cutAt, steppedDown) : undefined,
      healMs: since(healedAt, agreedAt),
    }
  } finally {
    if (cutIndex !== undefined) net.heal()
    await group.teardown(record)
  }
}

/** The nodes' views as they stood at `at`. */
function stateAt(record: Trial, at: number): State {
  const state = new Map<string, (typeof record.views)[number]>()
  for (const view of [...record.views].sort((a, b) => a.at - b.at)) {
    if (view.at > at) break
    state.set(view.id, view)
  }
  return state
}
