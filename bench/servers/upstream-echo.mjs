// The upstream of the proxied-call row: a publisher's endpoint that answers each POST with the text it got and its
// length, as JSON, doing next to nothing itself, so the row measures the hop. Plain .mjs so it runs under `node` alone.
import { createServer } from 'node:http'
import { FASTIFY_KEEP_ALIVE_MS } from './replay.mjs'

const health = Buffer.from('{"status":"ok"}')

const server = createServer((request, response) => {
  if (request.method !== 'POST') {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': health.length }).end(health)
    return
  }
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', () => {
    const { text } = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    const body = Buffer.from(JSON.stringify({ text, length: text.length }))
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body)
  })
})
server.keepAliveTimeout = FASTIFY_KEEP_ALIVE_MS
server.listen(Number(process.env.PORT), process.env.HOST)
