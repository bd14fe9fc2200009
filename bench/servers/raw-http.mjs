// The floor for discovery and detail: node:http sending the exact bytes Apiary sent, with no framework.
// Plain .mjs so it runs under `node` without a TypeScript loader.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

/** @type {Record<string, { status: number, contentType: string, body: string }>} */
const captured = JSON.parse(readFileSync(process.env.RESPONSES_FILE ?? '', 'utf8'))

const routes = new Map(Object.entries(captured).map(([path, { status, contentType, body }]) => {
  const bytes = Buffer.from(body, 'base64')
  return [path, { status, headers: { 'content-type': contentType, 'content-length': bytes.length }, bytes }]
}))
const health = Buffer.from('{"status":"ok"}')
routes.set('/health', { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': health.length }, bytes: health })

createServer((request, response) => {
  const route = routes.get(request.url ?? '')
  if (route === undefined) {
    response.writeHead(404).end()
    return
  }
  response.writeHead(route.status, route.headers).end(route.bytes)
}).listen(Number(process.env.PORT), process.env.HOST)
