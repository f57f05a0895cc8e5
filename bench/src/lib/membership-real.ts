/**
 * The `election.membership.real.*` trials: the real-process scenario of @sd/election's
 * membership-netns test (six processes in network namespaces, nftables loss: a join, a graceful
 * leave, a SIGKILL removal, a rejoin under the old id), timed from the processes' own lines. The
 * agreed view's times and, in the same processes, SWIM's (the baseline), on one clock: the
 * workers stamp their lines with the machine's monotonic time, the parent its leave and kill.
 */
import { fileURLToPath } from 'node:url'
import { type Fact, factsOf, type Member } from '../../../test-support/membership-procs.js'
import {
  JOINER,
  runMembershipScenario,
  type ScenarioOptions,
  type ScenarioRun,
} from '../../../test-support/membership-scenario.js'

export type RealChange = 'join' | 'leave' | 'removal' | 'rejoin'
export interface RealTrial {
  agreed: Record<RealChange, number>
  swim: Record<RealChange, number>
}

type Proto = 'membership' | 'swim'
const viewsOf = (m: Member, proto: Proto) =>
  factsOf(m).filter((f) => f.proto === proto && f.event.type === 'view')
const startedAt = (m: Member) => factsOf(m).find((f) => f.event.type === 'started')!.t
const membersOf = (f: Fact) => f.event.members as string[]

/** The latest, over `who`, of the first `proto` view after `from` that satisfies `ok`. */
function lastToSee(who: Member[], proto: Proto, from: number, ok: (m: string[]) => boolean) {
  let latest = Number.NEGATIVE_INFINITY
  for (const m of who) {
    const first = viewsOf(m, proto).find((f) => f.t >= from && ok(membersOf(f)))
    if (first === undefined) return Number.NaN
    latest = Math.max(latest, first.t)
  }
  return latest - from
}

/**
 * The workers live in test-support/, outside any package: they find @sd/* through this tsconfig's
 * paths, to the built packages. (They inherit the bench's own TSX_TSCONFIG_PATH otherwise, a path
 * relative to bench/ that does not exist where they start, and every trial failed on it.)
 */
const membersTsconfig = fileURLToPath(new URL('../../tsconfig.members.json', import.meta.url))

/** Runs the scenario with the workers' tsconfig in the environment they inherit, then restores it. */
async function scenarioRun(o: ScenarioOptions): Promise<ScenarioRun> {
  const before = process.env.TSX_TSCONFIG_PATH
  process.env.TSX_TSCONFIG_PATH = membersTsconfig
  try {
    return await runMembershipScenario(o)
  } finally {
    if (before === undefined) delete process.env.TSX_TSCONFIG_PATH
    else process.env.TSX_TSCONFIG_PATH = before
  }
}

export async function realTrial(o: ScenarioOptions): Promise<RealTrial> {
  const run: ScenarioRun = await scenarioRun(o)
  const { members, leaver, joiner, rejoined } = run
  const stayers = members.filter((m) => m !== leaver && m !== joiner && m !== rejoined)
  const withJoiner = (m: string[]) => m.includes(JOINER)
  const without = (id: string) => (m: string[]) => !m.includes(id)
  const joinedAt = startedAt(joiner)
  const rejoinedAt = startedAt(rejoined)
  const leftAt = factsOf(leaver).find((f) => f.proto === 'membership' && f.event.type === 'left')!.t
  // At the join every process but the later incarnation was up, the leaver included.
  const joinWho = members.filter((m) => m !== rejoined)
  return {
    agreed: {
      join: lastToSee(joinWho, 'membership', joinedAt, withJoiner),
      leave: lastToSee([...stayers, joiner], 'membership', run.leaveAt, without(leaver.label)),
      removal: lastToSee(stayers, 'membership', run.killAt, without(JOINER)),
      rejoin: lastToSee([...stayers, rejoined], 'membership', rejoinedAt, withJoiner),
    },
    swim: {
      join: lastToSee(joinWho, 'swim', joinedAt, withJoiner),
      leave: lastToSee([...stayers, joiner], 'swim', leftAt, without(leaver.label)),
      removal: lastToSee(stayers, 'swim', run.killAt, without(JOINER)),
      rejoin: lastToSee([...stayers, rejoined], 'swim', rejoinedAt, withJoiner),
    },
  }
}
