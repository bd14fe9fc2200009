import { test } from 'tap'
import { build } from '../helper.js'

test('PUBLIC_BASE_URL is the base of every link, whatever Host the request names', async (t) => {
  const app = await build(t, { env: { PUBLIC_BASE_URL: 'https://apiary.example.com/v1/' } })
  const headers = { host: 'internal:3000', 'x-forwarded-host': 'evil.com)' }
  const index = await app.inject({ url: '/llms.txt', headers })
  t.equal(index.statusCode, 200, 'the Host is not read, so a strange one is not refused')
  t.match(index.body, '(https://apiary.example.com/v1/api/bees/text-summarizer.md)')
  t.notMatch(index.body, /internal:3000|evil\.com/)
  const page = await app.inject({ url: '/api/bees/text-summarizer.md', headers })
  t.match(page.body, 'curl -s -X POST https://apiary.example.com/v1/api/bees/text-summarizer/execute')
  const card = (await app.inject({ url: '/.well-known/agent-card.json', headers })).json()
  t.match(JSON.stringify(card), 'https://apiary.example.com/v1/a2a')
})

test('unset, links follow the request\'s Host and a malformed one is refused', async (t) => {
  const app = await build(t)
  t.match((await app.inject({ url: '/llms.txt', headers: { host: 'bees.example.com:8080' } })).body, '(http://bees.example.com:8080/api/bees/')
  const refused = await app.inject({ url: '/llms.txt', headers: { host: 'evil.com)' } })
  t.equal(refused.statusCode, 400)
  t.match(refused.json(), { code: 'HOST_INVALID' })
})
