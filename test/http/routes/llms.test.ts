import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import SwaggerParser from '@apidevtools/swagger-parser'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { adminHeaders, build, createWallet } from '../../helper.js'
import { startFakeBee } from '../../fake-bee.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'

const run = promisify(execFile)
const host = { host: 'localhost:3000' }
const BASE = 'http://localhost:3000'

async function withPublisher (t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', ...env } })
  return { app, fake, publisher: await createPublisher(app) }
}

const get = (app: FastifyInstance, url: string, headers: Record<string, string> = {}) =>
  app.inject({ url, headers: { ...host, ...headers } })

/** The fenced blocks of a Markdown text in a given language. */
const blocks = (markdown: string, language: string) =>
  [...markdown.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)\\n```$', 'gm'))].map((match) => match[1] as string)

test('llms.txt follows llmstxt.org: H1, summary, the selected Bees, where every other Bee is, then Optional', async (t) => {
  const app = await build(t)
  const response = await get(app, '/llms.txt')
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
  const parts = response.body.split('\n\n')
  t.equal(parts[0], '# Apiary', 'the first line is the H1')
  t.match(parts[1], /^> [^\n]+$/, 'then a one-line blockquote summary')
  t.match(parts[2], /X-Registry-Wallet-Token/, 'then how to call and pay')
  t.notMatch(parts[2], /^#/, 'the paragraph is not a heading')

  const { bees } = (await app.inject('/api/bees')).json<{ bees: Array<{ id: string, name: string, category: string, pricing: { type: string, costPerCall: number, currency: string } }> }>()
  const headings = [...response.body.matchAll(/^## (.+)$/gm)].map((match) => match[1])
  t.same(headings, ['Most reliable Bees', 'Every Bee', 'Optional'])
  for (const bee of bees) {
    const price = bee.pricing.type === 'free' ? 'free' : `${bee.pricing.costPerCall} ${bee.pricing.currency} per call`
    const line = new RegExp(`^- \\[${bee.name}\\]\\(${BASE}/api/bees/${bee.id}\\.md\\): .+ Price: ${price}\\. OpenAPI: ${BASE}/api/bees/${bee.id}/openapi\\.json$`, 'm')
    t.match(response.body, line, `${bee.id} is listed with its page, price and OpenAPI document`)
  }
  const every = response.body.slice(response.body.indexOf('## Every Bee'), response.body.indexOf('## Optional'))
  t.same([...every.matchAll(/^- \[[^\]]+\]\(([^)]+)\): \S/gm)].map((match) => new URL(match[1] as string).pathname), ['/llms/bees.txt', '/api/bees'])
  const optional = response.body.slice(response.body.indexOf('## Optional'))
  const links = [...optional.matchAll(/^- \[([^\]]+)\]\(([^)]+)\): \S/gm)].map((match) => match[2] as string)
  t.same(links.map((link) => new URL(link).pathname), ['/openapi/openapi.json', '/mcp', '/docs', '/llms-full.txt'])
  t.ok(links.every((link) => link.startsWith(BASE)), 'links are absolute, at the address asked')
  for (const link of [...response.body.matchAll(/(?:\]\(|OpenAPI: )(http[^)\s]+)/g)].map((match) => new URL(match[1] as string))) {
    if (link.pathname === '/mcp') continue
    const target = await get(app, link.pathname + link.search)
    t.equal(target.statusCode, 200, `${link.pathname}${link.search} is served`)
  }
})

test('llms-full.txt inlines the selected Bees\' pages', async (t) => {
  const app = await build(t)
  const response = await get(app, '/llms-full.txt')
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'text/plain; charset=utf-8')
  t.match(response.body, /^# Apiary\n\n> /)
  for (const id of ['text-summarizer', 'sentiment-analyzer', 'weather-sensor']) {
    const page = (await get(app, `/api/bees/${id}.md`)).body
    // Inlined two levels down: its title is an H3 under the selection's H2.
    const shifted = page.replace(/^#+ /gm, (marks) => `##${marks}`)
    t.match(shifted, /^### /)
    t.ok(response.body.includes(shifted.trimEnd()), `${id}'s page is inlined`)
  }
})

test('a Bee published a second ago is in llms.txt and has its page; ETags change with the registry', async (t) => {
  const { app, fake, publisher } = await withPublisher(t)
  const before = await get(app, '/llms.txt')
  const etag = before.headers.etag as string
  t.match(etag, /^"[\w-]{27}"$/, 'a strong ETag')
  t.equal((await get(app, '/llms.txt', { 'if-none-match': etag })).statusCode, 304, 'unchanged: 304')
  t.notMatch(before.body, /shouter/)

  await publish(app, publisher.headers, beeBody('shouter', fake.url, { name: 'Shouter | Loud [beta]' }))
  const after = await get(app, '/llms.txt', { 'if-none-match': etag })
  t.equal(after.statusCode, 200, 'the old ETag no longer matches')
  t.not(after.headers.etag, etag)
  t.match(after.body, `- [Shouter | Loud \\[beta\\]](${BASE}/api/bees/shouter.md): Shouts the text back in capitals. Price: free.`)
  t.match((await get(app, '/llms-full.txt')).body, /^### Shouter \| Loud \[beta\]$/m)

  const page = await get(app, '/api/bees/shouter.md')
  t.equal(page.statusCode, 200)
  t.equal(page.headers['content-type'], 'text/markdown; charset=utf-8')
  t.match(page.body, /^# Shouter \| Loud \[beta\]\n\n> Shouts the text back in capitals\.\n/)
  t.match(page.body, '| `text` | string | yes | min length 1 | What to shout. |')
  t.match(page.body, '| `length` | integer | yes |  |  |')
  t.equal((await get(app, '/api/bees/shouter.md', { 'if-none-match': page.headers.etag as string })).statusCode, 304)

  const patched = await app.inject({ method: 'PATCH', url: '/api/bees/shouter', headers: publisher.headers, payload: { status: 'inactive', statusMessage: 'Use whisperer.' } })
  t.equal(patched.statusCode, 200)
  t.notMatch((await get(app, '/llms.txt')).body, /shouter/, 'inactive Bees are not listed')
  const inactive = await get(app, '/api/bees/shouter.md', { 'if-none-match': page.headers.etag as string })
  t.equal(inactive.statusCode, 200, 'the page was rebuilt')
  t.match(inactive.body, /This Bee is inactive.*409 `BEE_INACTIVE`.*Use whisperer\./)
  t.notMatch(inactive.body, /```sh/, 'no examples that would be refused')

  await app.inject({ method: 'DELETE', url: '/api/bees/shouter', headers: adminHeaders })
  const gone = await get(app, '/api/bees/shouter.md')
  t.equal(gone.statusCode, 404)
  t.match(gone.json(), { error: 'Not Found', code: 'BEE_NOT_FOUND' })
})

test('GET /api/bees/{id} answers JSON by default and Markdown to clients that prefer it', async (t) => {
  const app = await build(t)
  const page = (await get(app, '/api/bees/text-summarizer.md')).body
  const cases: Array<[string | undefined, 'json' | 'markdown']> = [
    [undefined, 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['text/markdown', 'markdown'],
    ['text/markdown, */*;q=0.8', 'markdown'],
    ['text/markdown, text/html, */*', 'markdown'],
    ['text/markdown;q=0.5, application/json', 'json'],
    ['application/json;q=0.1, text/markdown', 'markdown'],
    ['text/markdown;q=0, */*', 'json'],
    ['image/png', 'json'],
    ['', 'json'],
    ['TEXT/Markdown; charset=utf-8', 'markdown'],
    ['text/markdown; charset=iso-8859-1', 'json'],
    ['text/markdown;q=0.9, application/json;q=0.8', 'markdown'],
    // Equally wanted: the order the client listed them in decides (negotiator's rule).
    ['text/markdown, application/json', 'markdown'],
    ['application/json, text/markdown', 'json'],
    // Negotiation is skipped unless Accept names Markdown, so a wildcard alone gets the usual JSON.
    ['text/*', 'json'],
    ['text/*, application/*', 'json'],
    ['text/markdown;q=abc', 'json'],
    ['markdown, ,/,', 'json']
  ]
  const etags = new Set<string>()
  for (const [accept, expected] of cases) {
    const response = await get(app, '/api/bees/text-summarizer', accept === undefined ? {} : { accept })
    t.equal(response.statusCode, 200, String(accept))
    t.equal(response.headers.vary, 'Accept', 'caches are told the answer depends on Accept')
    if (expected === 'json') {
      t.equal(response.headers['content-type'], 'application/json; charset=utf-8', String(accept))
      t.equal(response.json().id, 'text-summarizer')
    } else {
      t.equal(response.headers['content-type'], 'text/markdown; charset=utf-8', String(accept))
      t.equal(response.body, page, 'the same view as the .md route')
    }
    etags.add(response.headers.etag as string)
  }
  t.equal(etags.size, 2, 'one ETag per representation')
  const markdownEtag = (await get(app, '/api/bees/text-summarizer', { accept: 'text/markdown' })).headers.etag as string
  const notModified = await get(app, '/api/bees/text-summarizer', { accept: 'text/markdown', 'if-none-match': markdownEtag })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers.vary, 'Accept')
  t.equal((await get(app, '/api/bees/text-summarizer', { 'if-none-match': markdownEtag })).statusCode, 200, 'the JSON is another representation')
  const missing = await get(app, '/api/bees/nope', { accept: 'text/markdown' })
  t.equal(missing.statusCode, 404)
  t.match(missing.json(), { code: 'BEE_NOT_FOUND' })
})

test('links and examples use the address the client came in at, through a gateway too', async (t) => {
  const app = await build(t)
  const forwarded = await get(app, '/llms.txt', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bees.example.com' })
  t.match(forwarded.body, '(https://bees.example.com/api/bees/text-summarizer.md)')
  t.notMatch(forwarded.body, 'localhost')
  const page = await get(app, '/api/bees/text-summarizer.md', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bees.example.com' })
  t.match(page.body, 'curl -s -X POST https://bees.example.com/api/bees/text-summarizer/execute')
  t.not(page.headers.etag, (await get(app, '/api/bees/text-summarizer.md')).headers.etag, 'each address has its own rendering')
  for (const bad of ['evil.com)', 'a\'b', 'x.com/path']) {
    const refused = await get(app, '/api/bees/text-summarizer.md', { 'x-forwarded-host': bad })
    t.equal(refused.statusCode, 400, bad)
    t.match(refused.json(), { error: 'Bad Request', code: 'HOST_INVALID' })
  }
})

test('the OpenAPI document describes the text answers and stays valid', async (t) => {
  const app = await build(t)
  const document = (await app.inject('/openapi/openapi.json')).json()
  await t.resolves(SwaggerParser.validate(structuredClone(document)))
  t.ok(document.paths['/llms.txt'].get.responses['200'].content['text/plain'])
  t.ok(document.paths['/llms-full.txt'].get.responses['200'].content['text/plain'])
  t.ok(document.paths['/api/bees/{id}.md'].get.responses['200'].content['text/markdown'])
  t.same(document.paths['/api/bees/{id}.md'].get.responses['404'], { $ref: '#/components/responses/BeeNotFound' })
  t.ok(document.components.responses.BeeNotFound.content['application/json'])
  t.same(Object.keys(document.paths['/api/bees/{id}'].get.responses['200'].content), ['application/json', 'text/markdown'])
})

test('the curl and MCP examples of a page work as printed against a listening server', async (t) => {
  const { app, fake, publisher } = await withPublisher(t)
  await publish(app, publisher.headers, beeBody('shouter', fake.url))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address() as { port: number }
  const base = `http://127.0.0.1:${address.port}`
  const wallet = await createWallet(app, 1)
  const env = { ...process.env, APIARY_WALLET_TOKEN: wallet.token }

  for (const id of ['shouter', 'text-summarizer', 'sentiment-analyzer']) {
    const page = await (await fetch(`${base}/api/bees/${id}.md`)).text()
    const [curl, mcpCurl] = blocks(page, 'sh')
    t.ok(curl?.startsWith(`curl -s -X POST ${base}/api/bees/${id}/execute`), `${id}: the curl example targets this server`)
    const honey = JSON.parse((await run('sh', ['-c', curl as string], { env })).stdout)
    t.match(honey, { beeId: id, result: {}, confidence: Number }, `${id}: the curl example answers Honey`)

    const [mcpBody] = blocks(page, 'json')
    t.ok(mcpCurl?.includes(JSON.stringify(JSON.parse(mcpBody as string))), `${id}: the MCP curl sends the printed body`)
    const answer = JSON.parse((await run('sh', ['-c', mcpCurl as string], { env })).stdout)
    t.equal(answer.result?.isError, undefined, `${id}: the MCP call succeeds`)
    t.same(answer.result?.structuredContent, honey.result, `${id}: the same input gives the same result over MCP`)
  }
  const journal = (await app.inject({ url: `/api/wallets/${wallet.id}/journal`, headers: adminHeaders })).json<{ entries: Array<{ kind: string, beeId: string }> }>()
  t.equal(journal.entries.filter((entry) => entry.kind === 'capture' && entry.beeId === 'sentiment-analyzer').length, 2, 'the paid examples were charged once each')
  t.equal(fake.calls.length, 2, 'the published Bee was called by both examples')
})

test('llms.txt names a bounded selection, the most reliable first; the paged index lists every active Bee once, in bounded pages', async (t) => {
  const { app, fake, publisher } = await withPublisher(t, { PUBLISHER_MAX_BEES: '500' })
  for (let index = 0; index < 210; index++) await publish(app, publisher.headers, beeBody(`bee-${String(index).padStart(3, '0')}`, fake.url))
  await publish(app, publisher.headers, beeBody('zz-steady', fake.url))
  await publish(app, publisher.headers, beeBody('zz-flaky', fake.url))
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/zz-steady/execute', payload: { text: 'a' } })).statusCode, 200)
  fake.mode = 'error'
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/zz-flaky/execute', payload: { text: 'a' } })).statusCode, 502)
  await app.beeHealth.sync()

  const index = (await get(app, '/llms.txt')).body
  const selected = [...index.matchAll(/^- \[[^\]]+\]\(http:\/\/localhost:3000\/api\/bees\/([^)]+)\.md\)/gm)].map((match) => match[1])
  t.equal(selected.length, 50, 'fifty Bees named, of 215')
  t.same(selected.slice(0, 2), ['zz-steady', 'zz-flaky'], 'Bees with runs first, the higher success rate first')
  t.ok(Buffer.byteLength(index) < 20_000, `${Buffer.byteLength(index)} bytes`)
  t.equal((await get(app, '/llms-full.txt')).body.match(/^### /gm)?.length, 50, 'llms-full.txt inlines the same fifty')

  const listed: string[] = []
  let url: string | undefined = '/llms/bees.txt'
  let pages = 0
  while (url !== undefined) {
    const page = await get(app, url)
    t.equal(page.statusCode, 200, url)
    t.match(page.body, /^# Apiary: every active Bee\n\n> /)
    const ids = [...page.body.matchAll(/^- \[[^\]]+\]\(http:\/\/localhost:3000\/api\/bees\/([^)]+)\.md\)/gm)].map((match) => match[1] as string)
    t.ok(ids.length <= 200, `page ${++pages} lists ${ids.length}`)
    listed.push(...ids)
    const next = /^## Next page\n\n- \[[^\]]+\]\(([^)]+)\)$/m.exec(page.body)?.[1]
    url = next === undefined ? undefined : new URL(next).pathname + new URL(next).search
  }
  t.equal(pages, 2)
  const { bees } = (await app.inject('/api/bees?limit=500')).json<{ bees: Array<{ id: string }> }>()
  t.same(listed, bees.map((bee) => bee.id), 'every active Bee once, in id order')

  const bad = await get(app, '/llms/bees.txt?cursor=nope')
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().code, 'INVALID_CURSOR')
  const first = await get(app, '/llms/bees.txt')
  t.equal((await get(app, '/llms/bees.txt', { 'if-none-match': first.headers.etag as string })).statusCode, 304)
})
