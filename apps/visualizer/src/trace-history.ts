/**
 * The trace's `historyCheck` (the cluster writes it beside `events`, see the cluster's README,
 * "The history's verdict in the trace"): `{ format: 'sd-history-check', version: 1, models: [{
 * model, verdict, message?, minimal?, counterexample?: [{ node, client, invokedAt, completedAt?,
 * label }] }] }`, times in ms on the trace's clock. Read into `HistoryVerdict`s; a document
 * without one has none, one of another format or version is an input error.
 */
import { type HistoryVerdict, InputError } from './model.js'

const VERDICTS = new Set(['linearizable', 'not-linearizable', 'unknown'])

type Fields = Record<string, unknown>
const isObject = (v: unknown): v is Fields => v !== null && typeof v === 'object'
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

export function readHistoryCheck(doc: unknown): HistoryVerdict[] | undefined {
  if (!isObject(doc) || doc.historyCheck === undefined) return undefined
  const check = doc.historyCheck
  if (!isObject(check) || check.format !== 'sd-history-check' || check.version !== 1)
    throw new InputError('`historyCheck` is not an sd-history-check document of version 1')
  if (!Array.isArray(check.models)) throw new InputError('`historyCheck` has no `models` array')
  return check.models.map((m: unknown, i) => {
    if (!isObject(m) || typeof m.model !== 'string' || !VERDICTS.has(String(m.verdict)))
      throw new InputError(`historyCheck model ${i} has no \`model\` name or no known \`verdict\``)
    const ops = Array.isArray(m.counterexample) ? m.counterexample : []
    return {
      model: m.model,
      verdict: m.verdict as HistoryVerdict['verdict'],
      ...(typeof m.message === 'string' ? { message: m.message } : {}),
      ...(typeof m.minimal === 'boolean' ? { minimal: m.minimal } : {}),
      operations: ops.map((o: unknown, j) => {
        if (!isObject(o) || o.node === undefined || !finite(o.invokedAt))
          throw new InputError(
            `historyCheck model ${i} (${m.model}), operation ${j}: no \`node\` or no finite \`invokedAt\``,
          )
        return {
          process: String(o.node),
          client: String(o.client ?? o.node),
          from: o.invokedAt,
          ...(finite(o.completedAt) ? { to: o.completedAt } : {}),
          label: typeof o.label === 'string' ? o.label : '',
        }
      }),
    }
  })
}

/** `lock history NOT linearizable (2 operations)` for each model that failed, for the title. */
export function historyTitle(verdicts: readonly HistoryVerdict[] | undefined): string {
  return (verdicts ?? [])
    .filter((v) => v.verdict === 'not-linearizable')
    .map((v) => {
      const n = v.operations.length
      return ` · ${v.model} history NOT linearizable (${n} operation${n === 1 ? '' : 's'})`
    })
    .join('')
}
