/** For the scenario tests: `sd run ... --json` in process, its output parsed and its result checked. */
import { isRecord } from '@sd/transport'
import { main } from '../cli.js'

/** A run's --json output, and its `result` (checked to be an object: the fields are read as unknown). */
export function runJson(args: string[]): {
  code: number
  out: Record<string, unknown>
  result: Record<string, unknown>
} {
  let text = ''
  const code = main(['run', ...args, '--json'], { out: (t) => (text += t), err: () => {} })
  const out: unknown = JSON.parse(text)
  if (!isRecord(out) || !isRecord(out.result)) throw new Error(`not a run's JSON: ${text}`)
  return { code, out, result: out.result }
}
