import jsonld from 'jsonld'
import { test } from 'tap'
import { crawlSite, type CrawlLimits } from '../../../src/core/preparations/crawl/crawl-site.js'
import { SiteFetcher } from '../../../src/core/preparations/crawl/fetch-page.js'
import { readPage } from '../../../src/core/preparations/crawl/read-page.js'
import { agentManifest } from '../../../src/core/preparations/outputs/agent-manifest.js'
import { jsonLd } from '../../../src/core/preparations/outputs/json-ld.js'
import { llmsTxt } from '../../../src/core/preparations/outputs/llms-txt.js'
import type { PreparationInputs, Progress } from '../../../src/core/preparations/schemas.js'
import { EgressPolicy } from '../../../src/core/publishing/egress.js'
import { startFakeSite } from '../../fake-site.js'
import { parseLlmsTxt } from './llms-txt-format.js'

const limits: CrawlLimits = { maxPages: 25, pageMaxBytes: 1024 * 1024, totalMaxBytes: 20 * 1024 * 1024, totalTimeoutMs: 30_000 }
const USER_AGENT = 'ApiaryPreparer/1.0 (+mailto:preparer@example.com)'

const inputs = (websiteUrl: string): PreparationInputs => ({
  name: 'crumb',
  websiteUrl,
  businessName: 'Crumb & Co',
  description: 'A neighbourhood bakery in Springfield.',
  primaryServices: ['Wedding cakes', 'Bread subscriptions'],
  targetAudience: 'Springfield households',
  notes: ''
})

/**
 * jsonld fetches https://schema.org's context over the network; the tests have none, so it is given a
 * context with the same effect on these documents: every term in the schema.org vocabulary.
 */
const documentLoader = async (url: string) => {
  if (!/^https?:\/\/schema\.org\/?$/.test(url)) throw new Error(`unexpected context ${url}`)
  return { contextUrl: undefined, documentUrl: url, document: { '@context': { '@vocab': 'https://schema.org/' } } }
}

async function crawlFake (t: { teardown (fn: () => unknown): void }, allowlist = ['127.0.0.1']) {
  const site = await startFakeSite()
  t.teardown(site.close)
  const fetcher = new SiteFetcher(new EgressPolicy(allowlist), USER_AGENT, 500)
  t.teardown(() => fetcher.close())
  const progress: Progress[] = []
  const result = await crawlSite(`${site.url}/`, { fetcher, limits, signal: new AbortController().signal, report: (p) => progress.push(p) })
  return { site, result, progress }
}

test('the normal pages are crawled; every hostile one is skipped with its reason in the notes', async (t) => {
  const { site, result, progress } = await crawlFake(t)
  if (!result.ok) throw new Error(JSON.stringify(result))
  t.same(result.pages.map((page) => new URL(page.url).pathname), ['/', '/services', '/about', '/services/wedding-cakes'])
  const notes = result.notes.join('\n')
  t.match(notes, /robots\.txt read/)
  t.match(notes, /sitemap .*sitemap\.xml read: 6 pages/)
  t.match(notes, /skipped .*\/private\/admin: disallowed by robots\.txt/)
  t.match(notes, /skipped .*\/slow: no complete answer within 500 ms/)
  t.match(notes, /skipped .*\/huge: larger than the page size cap/)
  t.match(notes, /skipped .*\/loop: redirect loop/)
  t.match(notes, /skipped .*\/brochure: not a type this crawl reads \(application\/pdf\)/)
  t.match(notes, /not followed http:\/\/10\.0\.0\.1\/admin: a loopback, private or reserved address/)
  t.match(notes, /not followed https:\/\/example\.org\/partner: off-site/)
  t.notOk(site.requests.some((request) => request.path.startsWith('/private')), 'a path robots.txt disallows is never requested')
  t.ok(site.requests.every((request) => request.userAgent === USER_AGENT), 'every request says who is crawling')
  t.equal(site.requests[0]?.path, '/robots.txt', 'robots.txt is read first')
  t.ok(progress.some((p) => p.stage === 'crawling' && p.pagesPlanned > 1), 'progress reports the pages planned')
})

test('llms.txt, JSON-LD and the agent manifest from the crawl', async (t) => {
  const { site, result } = await crawlFake(t)
  if (!result.ok) throw new Error('crawl failed')

  const llms = parseLlmsTxt(llmsTxt(inputs(site.url), result.pages))
  t.equal(llms.title, 'Crumb & Co')
  t.equal(llms.summary, 'A neighbourhood bakery in Springfield.')
  t.same([...llms.sections.keys()], ['Key pages', 'Optional'])
  t.same(llms.sections.get('Key pages')?.map((item) => item.url), [`${site.url}/`, `${site.url}/services`, `${site.url}/about`])
  t.equal(llms.sections.get('Key pages')?.[1]?.note, 'Bread subscriptions, wedding cakes and catering.')
  t.same(llms.sections.get('Optional')?.map((item) => item.title), ['Wedding cakes'])

  const document = jsonLd(inputs(site.url), result.pages)
  const expanded = await jsonld.expand(JSON.parse(document.text), { documentLoader: documentLoader as never })
  const byType = (type: string) => expanded.filter((node) => (node['@type'] as string[] | undefined)?.includes(`https://schema.org/${type}`))
  const [bakery] = byType('Bakery')
  t.ok(bakery, 'the site\'s own LocalBusiness subtype is kept')
  t.equal(bakery?.['@id'], `${site.url}/#bakery`, 'its relative @id is resolved against the page it was declared on')
  t.same((bakery?.['https://schema.org/name'] as Array<{ '@value': string }>)[0]?.['@value'], 'Crumb & Co')
  t.ok(bakery?.['https://schema.org/address'], 'the site\'s address is kept')
  const [website] = byType('WebSite')
  t.same(website?.['https://schema.org/publisher'], [{ '@id': `${site.url}/#bakery` }], 'the WebSite links to the business')
  const services = byType('Service')
  t.equal(services.length, 2, 'one Service per primary service')
  for (const service of services) t.same(service['https://schema.org/provider'], [{ '@id': `${site.url}/#bakery` }])
  t.same((services[0]?.['https://schema.org/description'] as Array<{ '@value': string }>)[0]?.['@value'], 'Tiered cakes made to order.',
    'the site\'s own Service declaration is merged into the matching one')
  t.equal(byType('FAQPage').length, 1, 'the site\'s other nodes stay')
  t.match(document.notes.join('\n'), /Bakery declaration kept and merged/)

  const manifest = JSON.parse(agentManifest(inputs(site.url), result.pages))
  t.same(manifest.openApi.map((found: { url: string }) => found.url), [`${site.url}/openapi.json`])
  t.same(manifest.openSearch.map((found: { url: string }) => found.url), [`${site.url}/opensearch.xml`])
  t.same(manifest.mcp, [])
  t.same(manifest.contactPoints.map((point: { value: string }) => point.value), ['hello@crumb.test', '+15550100'])
  t.same(manifest.forms[0].fields.map((field: { name: string }) => field.name), ['name', 'email', 'message'], 'hidden fields are left out')
  t.equal(manifest.forms[0].method, 'POST')
  t.equal(manifest.forms[0].fields[0].type, 'text', 'an input without a type is a text field')
  const servicesText = result.pages[1]?.mainText ?? ''
  t.match(servicesText, /^We offer bread subscriptions/, 'the main text is the page\'s running text: no navigation, no headings')
  t.notMatch(servicesText, /Home|Order a cake/)
})

test('a site offering nothing machine-usable gets an empty agent manifest, and still Organization JSON-LD', async (t) => {
  const page = readPage('<html><head><title>Plain</title></head><body><p>Just words.</p></body></html>', 'https://plain.example/')
  t.equal(agentManifest(inputs('https://plain.example/'), [page]), '')
  const graph = JSON.parse(jsonLd(inputs('https://plain.example/'), [page]).text)
  t.equal(graph['@graph'][0]['@type'], 'Organization', 'no LocalBusiness type is invented')
  t.equal(graph['@graph'][0]['@id'], 'https://plain.example/#organization')
  const expanded = await jsonld.expand(graph, { documentLoader: documentLoader as never })
  t.equal(expanded.length, 4, 'Organization, WebSite and two Services expand')
})

test('a site on a private address is refused by the SSRF guard: the job fails and will not be retried', async (t) => {
  const { site, result } = await crawlFake(t, [])
  t.equal(site.requests.length, 0, 'nothing was sent')
  t.match(result, { ok: false, retryable: false, error: { code: 'SITE_FORBIDDEN' } })
})
