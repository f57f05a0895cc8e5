import { arrayOf, intIn, messageParser } from '@sd/transport'

/** A packet as a plain byte array (the simulator copies messages as data). */
export type NtpSimMessage = { type: 'ntp'; bytes: number[] }

/** @deprecated Use NtpSimMessage. */
export type NtpSimMsg = NtpSimMessage

/** An NTP packet's bytes: 48 of header, extension fields and a MAC after it, within a datagram. */
export const parseMessage = messageParser<NtpSimMessage>({
  ntp: { bytes: arrayOf(intIn(0, 255), { max: 1500 }) },
})
