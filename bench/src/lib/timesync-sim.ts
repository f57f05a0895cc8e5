/**
 * Our NTP client's error on simulated exchanges: the real packets of @sd/timesync (request,
 * answer, sample), timestamps from a drifting client clock and a true server, one-way delays
 * drawn from a seeded exponential, three times longer on the way back. The error is measured
 * against the true offset and set beside the theory's bound, half the round trip.
 */

import { answerNtpRequest, createNtpRequest, PhysicalClock, sampleFromReply } from '@sd/timesync'
import { createRandom } from '@sd/transport'

export interface SimulatedExchange {
  errorMs: number
  halfRoundTripMs: number
}

export function simulatedExchanges(count: number, seed: string): SimulatedExchange[] {
  const random = createRandom(seed).next
  const exponential = (mean: number) => -mean * Math.log(1 - random())
  const epoch = Date.UTC(2026, 0, 1)
  const out: SimulatedExchange[] = []
  for (let i = 0; i < count; i++) {
    const client = new PhysicalClock({
      offsetMs: (2 * random() - 1) * 500,
      drift: (2 * random() - 1) * 1e-5,
    })
    let t = random() * 1e6
    const t1 = epoch + client.read(t)
    const request = createNtpRequest(t1, { random })
    t += 0.05 + exponential(0.5)
    const arrive = epoch + t
    t += random() * 0.05 // the server's own handling
    const reply = answerNtpRequest(request.bytes, arrive, epoch + t)
    t += 0.05 + exponential(1.5)
    const sample = sampleFromReply(request, reply, epoch + client.read(t))
    // The true offset (server minus client) at the reply's arrival.
    const truth = t - client.read(t)
    out.push({ errorMs: Math.abs(sample.offsetMs - truth), halfRoundTripMs: sample.delayMs / 2 })
  }
  return out
}
