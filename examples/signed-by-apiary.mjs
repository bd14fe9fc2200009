// Whether a call comes from Apiary: its X-Apiary-Signature (docs/publishers.md), checked with the Bee's signing secret.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'

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

/** A server on 127.0.0.1 that refuses unsigned calls (401) and hands each signed one's JSON input to `handle`. */
export function serveSignedCalls (secret, port, handle) {
  return createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => { body += chunk })
    request.on('end', () => {
      if (!signedByApiary(secret, request.headers, body)) {
        response.writeHead(401).end()
        return
      }
      handle(JSON.parse(body), request, response)
    })
  }).listen(port, '127.0.0.1')
}
