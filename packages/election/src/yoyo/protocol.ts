import { type Ctx, compareNodeIds, type NodeId, type ProtocolFactory } from '@sd/transport'
import type { ElectionRequest } from '../contract.js'
import { snapshotFields } from '../restore.js'
import { nextTerm, observeTerm, storedTerm } from '../terms.js'
import { answers, smallest } from './answers.js'
import type { YoyoEvent } from './events.js'
import { parseMessage, type YoyoMessage } from './messages.js'
import { neighborsOf, resolveOptions, type YoyoOptions } from './options.js'

type YoyoCtx = Ctx<YoyoMessage, YoyoEvent>
type Vote = Extract<YoyoMessage, { type: 'vote' }>
type Staged = Extract<YoyoMessage, { iteration: number }>

const YOYO_FIELDS = [
  'graph',
  'stage',
  'heard',
  'ins',
  'outs',
  'iteration',
  'isSource',
  'values',
  'votes',
  'early',
  'known',
] as const

const refill = (set: Set<NodeId>, ids: readonly NodeId[]) => {
  set.clear()
  for (const id of ids) set.add(id)
}

/**
 * YoYo (Santoro): elects the smallest id on any connected undirected graph, each node talking to
 * its graph neighbors only. Set-up: neighbors exchange ids and orient each edge from the smaller
 * id to the larger, which gives a DAG (ids are totally ordered, so it has no cycle). Then
 * iterations of two waves:
 * - YO-: a source sends its id down its out-edges; a node with in-edges waits for a value on
 *   each, and sends the smallest down its own out-edges.
 * - -YO: from the sinks up, votes (see `answers`): YES along the edges of the smallest value,
 *   NO elsewhere or after a NO from below. A source with a NO is out. An edge that carried a NO
 *   is flipped, which keeps the graph acyclic and turns losing sources into non-sources; pruning
 *   removes edges and nodes that can no longer change the outcome.
 * The smallest id is never told NO. With two sources or more, some node gets two values and
 * says NO to the larger, whose source is out: the sources decrease every iteration (not always
 * by half: 2 of 3 can survive). With one source left, every other node prunes itself in the next
 * -YO, so the source ends with no edge: it is the leader, and floods LEADER through the graph.
 * Messages: 2m for set-up, 2 per edge still in the DAG per iteration, 2m - (n - 1) for the notice.
 *
 * Where the texts leave room, this implementation decides:
 * - A NO that comes with a prune is not counted by its receiver (the edge goes instead of
 *   flipping). The same NO reaches the same source anyway: the voter kept another edge that
 *   brought the same value and answered NO on it too (see `answers`). Counted, it could make an
 *   internal node whose in-edges all flip into a new source.
 * - A node that, after the pruning of this -YO, is a sink with a single in-neighbor prunes
 *   itself in the same -YO (pruning cascades), so the last iteration removes the whole DAG but
 *   the leader instead of one layer of sinks per iteration.
 * - The leader's term is the next durable term (`nextTerm`); the others record it on the notice.
 *
 * There is no global round: a node moves to the next iteration once it has answered (or, as a
 * source, once every vote is in), and messages carry their iteration so that one arriving early
 * waits for it. One shot on a failure-free network: every node starts at `start`; there is no
 * timer, no retry and no re-election (a lost message, a crash or a restart leaves the election
 * stuck), and `start` / `resign` requests are ignored.
 */
export function yoyo(
  options: YoyoOptions,
): ProtocolFactory<YoyoMessage, ElectionRequest, YoyoEvent> {
  const { neighbors } = resolveOptions(options)
  return (self) => {
    let graph: NodeId[] = []
    let stage: 'setup' | 'dag' | 'left' | 'done' = 'setup'
    const heard = new Set<NodeId>()
    /** This node's edges in the DAG, by direction; pruned edges leave both. */
    const ins = new Set<NodeId>()
    const outs = new Set<NodeId>()
    /** Iterations started (0 during set-up). */
    let iteration = 0
    let isSource = false
    const values = new Map<NodeId, NodeId>()
    const votes = new Map<NodeId, Vote>()
    /** Messages of an iteration this node has not reached yet. */
    let early: Array<{ from: NodeId; m: Staged }> = []
    let known: { leader: NodeId; term: number } | undefined

    const ignore = (from: NodeId, reason: string, ctx: YoyoCtx) =>
      ctx.emit({ type: 'ignored', from, reason })

    const begin = (ctx: YoyoCtx) => {
      if (ins.size === 0 && outs.size === 0) return win(ctx) // the DAG is this node alone
      iteration++
      values.clear()
      votes.clear()
      isSource = ins.size === 0
      const role = isSource ? 'source' : outs.size === 0 ? 'sink' : 'internal'
      ctx.emit({ type: 'phase', phase: 'yo-', iteration, role })
      if (isSource) {
        for (const to of outs) ctx.send(to, { type: 'yo', iteration, value: self })
        ctx.emit({ type: 'phase', phase: '-yo', iteration })
      }
      const now = early.filter((e) => e.m.iteration === iteration)
      early = early.filter((e) => e.m.iteration !== iteration)
      for (const { from, m } of now) staged(from, m, ctx)
    }

    const onYo = (from: NodeId, value: NodeId, ctx: YoyoCtx) => {
      if (!ins.has(from) || values.has(from))
        return ignore(from, 'yo on no in-edge waiting for one', ctx)
      values.set(from, value)
      if (values.size < ins.size) return
      ctx.emit({ type: 'phase', phase: '-yo', iteration })
      if (outs.size === 0) return answerUp(false, 0, ctx)
      const min = smallest(values.values())!
      for (const to of outs) ctx.send(to, { type: 'yo', iteration, value: min })
    }

    const onVote = (from: NodeId, vote: Vote, ctx: YoyoCtx) => {
      if (!outs.has(from) || votes.has(from))
        return ignore(from, 'vote on no out-edge waiting for one', ctx)
      if (!isSource && values.size < ins.size)
        return ignore(from, 'vote before this node sent its value', ctx)
      votes.set(from, vote)
      if (votes.size < outs.size) return
      // Only a NO on an edge that stays counts (see `answers`): that edge flips into an in-edge.
      let anyNo = false
      let below = 0 // edges below that stay, flipped or not
      for (const [to, v] of votes) {
        if (v.prune) {
          outs.delete(to)
          continue
        }
        below++
        if (v.yes) continue
        anyNo = true
        outs.delete(to) // flipped: it points to this node now
        ins.add(to)
      }
      if (!isSource) return answerUp(anyNo, below, ctx)
      if (anyNo) ctx.emit({ type: 'defeated', iteration })
      begin(ctx)
    }

    const answerUp = (anyNo: boolean, below: number, ctx: YoyoCtx) => {
      const { answers: list, leave } = answers(values, anyNo, below)
      for (const a of list) {
        ctx.send(a.to, { type: 'vote', iteration, yes: a.yes, prune: a.prune })
        if (a.prune) {
          ins.delete(a.to)
          ctx.emit({ type: 'prune', iteration, neighbor: a.to })
        } else if (!a.yes) {
          ins.delete(a.to) // flipped: it points away from this node now
          outs.add(a.to)
          ctx.emit({ type: 'flip', iteration, neighbor: a.to })
        }
      }
      if (!leave) return begin(ctx)
      stage = 'left'
      ctx.emit({ type: 'left', iteration })
    }

    const staged = (from: NodeId, m: Staged, ctx: YoyoCtx) => {
      if (stage === 'left' || stage === 'done')
        return ignore(from, `${m.type} after leaving the DAG`, ctx)
      if (m.iteration > iteration) {
        early.push({ from, m })
        return
      }
      if (m.iteration < iteration)
        return ignore(from, `${m.type} of past iteration ${m.iteration}`, ctx)
      if (m.type === 'yo') onYo(from, m.value, ctx)
      else onVote(from, m, ctx)
    }

    const onSetup = (from: NodeId, ctx: YoyoCtx) => {
      if (stage !== 'setup' || heard.has(from)) return ignore(from, 'setup twice', ctx)
      heard.add(from)
      if (compareNodeIds(from, self) < 0) ins.add(from)
      else outs.add(from)
      if (heard.size < graph.length) return
      stage = 'dag'
      begin(ctx)
    }

    const announce = (leader: NodeId, term: number, from: NodeId | undefined, ctx: YoyoCtx) => {
      stage = 'done'
      known = { leader, term }
      early = []
      ctx.emit({ type: 'leader', leader, term })
      for (const to of graph) if (to !== from) ctx.send(to, { type: 'leader', leader, term })
    }

    const win = (ctx: YoyoCtx) => {
      ctx.emit({ type: 'elected', iterations: iteration })
      announce(self, nextTerm(ctx.storage), undefined, ctx)
    }

    return {
      /**
       * Every variable above as canonical plain data: the sets only asked about by id; the
       * out-edges, the values, the votes and the early messages in the order they came, which is
       * the order the node sends, answers, flips and takes them up in (state, not history).
       */
      snapshot() {
        const inOrder = <V>(map: Map<NodeId, V>) => [...map].map(([id, value]) => ({ id, value }))
        return {
          graph: [...graph],
          stage,
          heard: [...heard].sort(compareNodeIds),
          ins: [...ins].sort(compareNodeIds),
          outs: [...outs], // sent to in this order
          iteration,
          isSource,
          values: inOrder(values), // answered in this order
          votes: inOrder(votes).map(({ id, value }) => ({ id, value: { ...value } })), // flipped in it
          early: early.map(({ from, m }) => ({ from, m: { ...m } })), // taken up in this order
          known: known === undefined ? null : { ...known },
        }
      },

      restore(snapshot) {
        const v = snapshotFields(snapshot, 'yoyo()', YOYO_FIELDS)
        type Keyed<V> = Array<{ id: NodeId; value: V }>
        graph = [...(v.graph as NodeId[])]
        stage = v.stage as typeof stage
        iteration = v.iteration as number
        isSource = v.isSource as boolean
        refill(heard, v.heard as NodeId[])
        refill(ins, v.ins as NodeId[])
        refill(outs, v.outs as NodeId[])
        values.clear()
        for (const { id, value } of v.values as Keyed<NodeId>) values.set(id, value)
        votes.clear()
        for (const { id, value } of v.votes as Keyed<Vote>) votes.set(id, { ...value })
        early = (v.early as typeof early).map(({ from, m }) => ({ from, m: { ...m } }))
        known = v.known === null ? undefined : { ...(v.known as NonNullable<typeof known>) }
      },

      start(ctx) {
        storedTerm(ctx.storage) // a damaged stored term (StoredStateError) stops the node now
        graph = neighborsOf(self, [self, ...ctx.peers], neighbors)
        ctx.emit({ type: 'phase', phase: 'setup' })
        for (const to of graph) ctx.send(to, { type: 'setup' })
        if (graph.length === 0) {
          stage = 'dag'
          begin(ctx)
        }
      },

      onRequest(req, ctx) {
        const kind: unknown = req?.type
        if (kind === 'start')
          return ignore(self, 'already running: yoyo starts once, at start', ctx)
        if (kind === 'resign') return ignore(self, 'yoyo is a one-shot election: no resign', ctx)
        ignore(self, 'unknown request', ctx)
      },

      onMessage(from, raw, ctx) {
        const m = parseMessage(raw)
        if (typeof m === 'string') return ignore(from, m, ctx)
        if (!graph.includes(from)) return ignore(from, 'not a neighbor', ctx)
        if (m.type === 'setup') return onSetup(from, ctx)
        if (m.type === 'leader') {
          if (known !== undefined) return // the flood reaches a node once per edge
          observeTerm(ctx.storage, m.term)
          return announce(m.leader, m.term, from, ctx)
        }
        staged(from, m, ctx)
      },
    }
  }
}
