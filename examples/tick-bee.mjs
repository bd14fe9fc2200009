// A publisher's stream Bee: it checks that each call comes from the registry (as shout-bee.mjs does) and answers
// Server-Sent Events: a progress event, one `data` event a tick ({"tick": n}, its eventSchema), then the `result` event
// (its outputSchema). Run: APIARY_SIGNING_SECRET=bsk_… node examples/tick-bee.mjs (TICKS=5, TICK_MS=200 by default).
import { serveSignedCalls } from './signed-by-apiary.mjs'

const secret = process.env.APIARY_SIGNING_SECRET ?? ''
const port = Number(process.env.PORT ?? 8081)
const ticks = Number(process.env.TICKS ?? 5)
const tickMs = Number(process.env.TICK_MS ?? 200)

const send = (response, event, data) => response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)

serveSignedCalls(secret, port, async ({ text }, request, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  // Apiary closes the connection when its caller goes away: stop working then.
  for (let tick = 1; tick <= ticks && !response.destroyed; tick++) {
    send(response, 'progress', { progress: (tick - 1) / ticks })
    send(response, 'data', { tick })
    await new Promise((resolve) => setTimeout(resolve, tickMs))
  }
  send(response, 'result', { shout: text.toUpperCase(), length: text.length })
  response.end()
}).on('listening', () => console.log(`tick Bee on http://127.0.0.1:${port}/ticks`))
