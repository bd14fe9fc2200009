// A publisher's Bee in a dozen lines: it checks that each call comes from the registry (the
// X-Apiary-Signature header, checked in signed-by-apiary.mjs) and answers {shout, length}. Run: APIARY_SIGNING_SECRET=bsk_… node examples/shout-bee.mjs
import { createServer } from 'node:http'
import { signedByApiary } from './signed-by-apiary.mjs'

const secret = process.env.APIARY_SIGNING_SECRET ?? ''
const port = Number(process.env.PORT ?? 8080)

createServer((request, response) => {
  let body = ''
  request.on('data', (chunk) => { body += chunk })
  request.on('end', () => {
    if (!signedByApiary(secret, request.headers, body)) {
      response.writeHead(401).end()
      return
    }
    const { text } = JSON.parse(body)
    response.writeHead(200, { 'content-type': 'application/json', 'x-bee-confidence': '1' })
    response.end(JSON.stringify({ shout: text.toUpperCase(), length: text.length }))
  })
}).listen(port, '127.0.0.1', () => console.log(`shout Bee on http://127.0.0.1:${port}/shout`))
