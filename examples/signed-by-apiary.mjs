// Whether a call comes from Apiary: its X-Apiary-Signature (docs/publishers.md), checked with the Bee's signing secret.
import { createHmac, timingSafeEqual } from 'node:crypto'

export function signedByApiary (secret, headers, body) {
  const timestamp = Number(headers['x-apiary-timestamp'])
  // Refuse replays of old calls: five minutes of clock difference at most.
  if (!Number.isFinite(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300) return false
  const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`)
  // After a rotation Apiary signs with the new and the old secret for a while: any one entry may match.
  return String(headers['x-apiary-signature'] ?? '').split(',').some((entry) => {
    const given = Buffer.from(entry.trim())
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}
