/**
 * The PreVote rejoin figure: a follower of the majority mode is cut off (both directions) for
 * longer than the election timeout, then healed. Without PreVote it stands again and again while
 * cut off, raising its term, and on its return that higher term unseats the leader (a new election
 * for nothing); with PreVote it first asks whether the others would vote, they would not (they
 * hear their leader), and the leader and term stay. One trial per fresh group, as the partition.
 */

import type { NetnsHosts } from '../../../test-support/netns-hosts.js'
import { type Group, ids, sleep, type Trial } from './election-group.js'
import { type Contender, nowMs, type View } from './election-protocol.js'
import { algorithmName, describeSettings, type ElectionSetup } from './election-results.js'
import { agreedLeader, firstTime, type State } from './election-timeline.js'
import type { TrialTiming } from './election-trials.js'
import type { BenchResult } from './result.js'

const all: string[] = [...ids]
const agreed = (among: readonly string[]) => (s: State) => agreedLeader(s, among) !== undefined

export interface RejoinTiming extends TrialTiming {
  /** How long the follower is cut off (longer than the election timeout). */
  cutMs: number
  /** How long the trial watches after the three agree again (elections come within timeouts). */
  watchMs: number
}

export interface RejoinRun {
  contender: Contender
  ok: boolean
  error?: string
  /** The follower cut off, the leader and its term before the cut. */
  cut?: string
  leader?: string
  term?: number
  /** The highest term the cut-off node stood for by the heal (none: it never stood). */
  cutStoodAtHeal?: number
  /** The two others changed leader or term during the cut (then the trial says nothing). */
  disturbedDuringCut?: boolean
  /** After the heal, a node of the two others took a higher term or another leader. */
  electionCaused?: boolean
  /** The highest term of the two others after the heal, and the leader all three agreed on last. */
  termAfter?: number
  leaderAfter?: string
  /** From the heal to the first agreement of all three. */
  healMs?: number
}

export async function rejoinTrial(
  group: Group,
  net: NetnsHosts,
  contender: Contender,
  trial: number,
  timing: RejoinTiming,
  /** Which follower to cut: 0 the lower id, 1 the higher. */
  which: number,
): Promise<RejoinRun> {
  const started = await group.start(trial, contender, timing.settings)
  if (typeof started === 'string') return { contender, ok: false, error: started }
  const record: Trial = started
  let cutIndex: number | undefined
  try {
    if (!(await record.settled(agreed(all), timing.settleMs, timing.agreeTimeoutMs))) {
      return { contender, ok: false, error: 'no first agreement' }
    }
    const leader = agreedLeader(record.state, all)!
    const term = record.state.get(leader)?.term ?? 0
    const cut = all.filter((id) => id !== leader)[which % 2]!
    const others = all.filter((id) => id !== cut)
    cutIndex = all.indexOf(cut)
    net.cut(cutIndex)
    const cutAt = nowMs()
    await sleep(timing.cutMs)
    const healedAt = nowMs()
    const cutStoodAtHeal = record.state.get(cut)?.stood
    net.heal()
    cutIndex = undefined
    const ok = await record.until(agreed(all), timing.agreeTimeoutMs)
    await sleep(timing.watchMs)
    const end = nowMs()
    const { views } = record
    const moved = (v: View) =>
      others.includes(v.id) && ((v.term ?? 0) > term || v.leader !== leader)
    const during = views.filter((v) => v.at > cutAt && v.at <= healedAt)
    const after = views.filter((v) => v.at > healedAt && v.at <= end)
    const termAfter = Math.max(
      term,
      ...after.filter((v) => others.includes(v.id)).map((v) => v.term ?? 0),
    )
    const agreedAt = ok ? firstTime(views, healedAt, end + 1, agreed(all)) : undefined
    return {
      contender,
      ok: ok && agreedLeader(record.state, all) !== undefined,
      error: ok ? undefined : 'no agreement after the heal',
      cut,
      leader,
      term,
      cutStoodAtHeal,
      disturbedDuringCut: during.some(moved),
      electionCaused: after.some(moved),
      termAfter,
      leaderAfter: agreedLeader(record.state, all),
      healMs: agreedAt === undefined ? undefined : Math.max(0, agreedAt - healedAt),
    }
  } finally {
    if (cutIndex !== undefined) net.heal()
    await group.teardown(record)
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10

function rejoinSide(runs: RejoinRun[]) {
  const judged = runs.filter((r) => r.ok && !r.disturbedDuringCut)
  const heals = judged.flatMap((r) => (r.healMs === undefined ? [] : [r.healMs]))
  heals.sort((a, b) => a - b)
  return {
    runs: runs.length,
    judged: judged.length,
    failed: runs.filter((r) => !r.ok).length,
    disturbedDuringCut: runs.filter((r) => r.disturbedDuringCut).length,
    electionsCaused: judged.filter((r) => r.electionCaused).length,
    leaderChanged: judged.filter((r) => r.leaderAfter !== r.leader).length,
    cutNodeStood: judged.filter((r) => r.cutStoodAtHeal !== undefined).length,
    healMsMedian: heals.length > 0 ? round1(heals[Math.floor((heals.length - 1) / 2)]!) : null,
    errors: runs.flatMap((r) => (r.error ? [r.error] : [])),
  }
}

const detail = (r: RejoinRun) => ({
  ...r,
  healMs: r.healMs === undefined ? undefined : round1(r.healMs),
})

/** `election.prevote.rejoin`: elections caused by the rejoin, with PreVote and (contrast) without. */
export function rejoinResults(runs: RejoinRun[], setup: ElectionSetup, timing: RejoinTiming) {
  const mine = runs.filter((r) => r.contender === 'majority')
  const contrast = runs.filter((r) => r.contender === 'majority-no-prevote')
  if (mine.length === 0) return []
  const ours = rejoinSide(mine)
  const without = rejoinSide(contrast)
  const result: BenchResult = {
    name: 'election.prevote.rejoin',
    unit: 'elections',
    value: ours.electionsCaused,
    lowerIsBetter: true,
    ...(contrast.length === 0
      ? {}
      : {
          baseline: {
            name: `${algorithmName['majority-no-prevote']} (${without.judged} trials)`,
            value: without.electionsCaused,
          },
        }),
    params: {
      what:
        `elections caused by a follower rejoining after a ${timing.cutMs} ms cut (both directions; ` +
        'the election timeout is the heartbeat timeout): trials in which, after the heal, the two ' +
        'others took a higher term or another leader (3 hosts in network namespaces on a bridge)',
      algorithm: algorithmName.majority,
      nodes: 3,
      repeats: mine.length,
      contrastRepeats: contrast.length,
      cutMs: timing.cutMs,
      watchMs: timing.watchMs,
      settings: describeSettings(setup.settings).ours,
      settleMs: setup.settleMs,
      timeoutMs: setup.agreeTimeoutMs,
      goal: `0 of ${mine.length}`,
      ours,
      baseline: without,
    },
    extra: { runs: mine.map(detail), baselineRuns: contrast.map(detail) },
  }
  return [result]
}
