// A publisher's Bee in a dozen lines: it checks that each call comes from the registry (the
// X-Apiary-Signature header, checked in signed-by-apiary.mjs) and answers {shout, length}. Run: APIARY_SIGNING_SECRET=bsk_… node examples/shout-bee.mjs
// With WORK_SECONDS=N it is a long-running Bee (publish it with config.executionMode "async", docs/runs.md): each call
// takes N seconds, printing its progress, and stops when Apiary closes the connection (a cancel, a timeout).
import { serveSignedCalls } from './signed-by-apiary.mjs'

const secret = process.env.APIARY_SIGNING_SECRET ?? ''
const port = Number(process.env.PORT ?? 8080)
const workSeconds = Number(process.env.WORK_SECONDS ?? 0)

/** The long part of the work: a second at a time, until done or the caller has gone. */
async function work (requestId, response) {
  for (let second = 1; second <= workSeconds && !response.destroyed; second++) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    console.log(`${requestId}: ${Math.round((second / workSeconds) * 100)} %`)
  }
}

serveSignedCalls(secret, port, async ({ text }, request, response) => {
  await work(request.headers['x-request-id'], response)
  if (response.destroyed) return console.log(`${request.headers['x-request-id']}: stopped, the caller has gone`)
  response.writeHead(200, { 'content-type': 'application/json', 'x-bee-confidence': '1' })
  response.end(JSON.stringify({ shout: text.toUpperCase(), length: text.length }))
}).on('listening', () => console.log(`shout Bee on http://127.0.0.1:${port}/shout`))
