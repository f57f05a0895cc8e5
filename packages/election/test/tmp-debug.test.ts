import { it } from 'vitest'
import { resolveOptions } from '../src/membership/options.js'
import { FOUNDERS, runChurn } from './support/membership-churn.js'

it('debug', () => {
  const settings = resolveOptions({ founders: FOUNDERS, retryMs: 100 })
  const { net, events, election, faults, plan } = runChurn(Number(process.env.SEED), settings)
  console.log(JSON.stringify(plan.leaver), plan.dead)
  const lo = Number(process.env.LO),
    hi = Number(process.env.HI)
  const rows: string[] = []
  for (const f of faults)
    if (f.t >= lo && f.t <= hi) rows.push(`${f.t.toFixed(1)} FAULT ${JSON.stringify(f)}`)
  for (const e of [...events, ...election]) {
    const ev = e.event as { type: string }
    if (e.t >= lo && e.t <= hi && !['ignored', 'lease', 'acknowledged'].includes(ev.type))
      rows.push(`${e.t.toFixed(1)} n${e.node} ${JSON.stringify(ev)}`)
  }
  rows.sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b))
  console.log(rows.join('\n'))
})
