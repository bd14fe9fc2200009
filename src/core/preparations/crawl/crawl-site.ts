import { isIP } from 'node:net'
import { isForbiddenAddress } from '../../publishing/egress.js'
import type { PreparationError, Progress } from '../schemas.js'
import { ROBOTS_AGENT, type SiteFetcher } from './fetch-page.js'
import { readPage, type ReadPage } from './read-page.js'
import { readRobots } from './robots.js'
import { readSitemaps } from './sitemap.js'

export interface CrawlLimits {
  maxPages: number
  pageMaxBytes: number
  totalMaxBytes: number
  totalTimeoutMs: number
}

export type CrawlResult =
  /** `pages` starts with the home page. */
  | { ok: true, pages: ReadPage[], notes: string[] }
  | { ok: false, error: PreparationError, retryable: boolean, notes: string[] }

export interface CrawlRun {
  fetcher: SiteFetcher
  limits: CrawlLimits
  signal: AbortSignal
  report (progress: Progress): void
}

/** Off-site links are listed in the notes up to this many; the rest are counted. */
const MAX_OFF_SITE_NOTES = 20

/** Links to these are files, not pages: not fetched. */
const NOT_A_PAGE = /\.(?:pdf|zip|gz|tgz|rar|7z|jpe?g|png|gif|webp|svg|ico|mp[34]|mov|avi|webm|woff2?|ttf|css|js|json|xml|txt|docx?|xlsx?|pptx?)$/i

const siteHost = (url: URL) => url.host.toLowerCase().replace(/^www\./, '')

const isHtml = (contentType: string) => /^(?:text\/html|application\/xhtml\+xml)\b/i.test(contentType)

/**
 * Crawls one website within its budget: robots.txt first (its rules are obeyed), then the home page, the
 * sitemap's pages and the links found, breadth first, same site only (the host with or without www.,
 * http or https). Everything skipped is noted with its reason. Fails only when the home page cannot be had.
 */
export async function crawlSite (websiteUrl: string, run: CrawlRun): Promise<CrawlResult> {
  const { fetcher, limits } = run
  const home = new URL(websiteUrl)
  home.hash = ''
  const onSite = (url: URL) => (url.protocol === 'http:' || url.protocol === 'https:') && siteHost(url) === siteHost(home)
  const signal = AbortSignal.any([run.signal, AbortSignal.timeout(limits.totalTimeoutMs)])
  const notes: string[] = []
  const fail = (code: string, message: string, retryable: boolean): CrawlResult => ({ ok: false, error: { code, message }, retryable, notes })
  const forbidden = () => fail('SITE_FORBIDDEN', `${home.host} is a loopback, private or reserved address: Apiary does not crawl it.`, false)

  run.report({ pagesFetched: 0, pagesPlanned: 1, stage: 'robots' })
  const robots = await readRobots(home, fetcher, signal, onSite)
  if (!robots.ok) {
    return robots.forbidden
      ? forbidden()
      : fail('ROBOTS_UNAVAILABLE', `${robots.reason}; a site whose robots.txt cannot be read is not crawled (RFC 9309). It will be retried.`, true)
  }
  notes.push(robots.note)
  if (!robots.allows(home.href)) {
    return fail('ROBOTS_DISALLOWED', `robots.txt disallows ${home.href} to ${ROBOTS_AGENT}: the site asks not to be crawled.`, false)
  }

  run.report({ pagesFetched: 0, pagesPlanned: 1, stage: 'sitemap' })
  const sitemap = await readSitemaps(robots.sitemaps, home, fetcher, signal, onSite)
  notes.push(...sitemap.notes)

  const queue: string[] = []
  const seen = new Set<string>()
  const offSite = new Set<string>()
  const plan = (address: string) => {
    const url = new URL(address)
    url.hash = ''
    if (seen.has(url.href)) return
    seen.add(url.href)
    if (!onSite(url)) {
      offSite.add(url.href)
      return
    }
    if (NOT_A_PAGE.test(url.pathname)) return
    queue.push(url.href)
  }
  plan(home.href)
  for (const page of sitemap.pages) plan(page)

  const pages: ReadPage[] = []
  let fetched = 0
  let totalBytes = 0
  const planned = () => Math.min(limits.maxPages, fetched + queue.length)
  while (queue.length > 0 && pages.length < limits.maxPages) {
    if (signal.aborted) {
      notes.push(run.signal.aborted ? 'crawl stopped' : `time budget reached (${limits.totalTimeoutMs} ms): ${queue.length} planned pages not fetched`)
      break
    }
    if (totalBytes > limits.totalMaxBytes) {
      notes.push(`size budget reached (${totalBytes} bytes > ${limits.totalMaxBytes}): ${queue.length} planned pages not fetched`)
      break
    }
    const address = queue.shift() as string
    const isHome = address === home.href
    if (!robots.allows(address)) {
      notes.push(`skipped ${address}: disallowed by robots.txt`)
      continue
    }
    run.report({ pagesFetched: fetched, pagesPlanned: planned(), stage: 'crawling' })
    const got = await fetcher.get(address, { accept: 'text/html, application/xhtml+xml', maxBytes: limits.pageMaxBytes, signal, follows: onSite, wants: isHtml })
    fetched++
    totalBytes += got.bytes
    if (!got.ok) {
      if (isHome) {
        return got.forbidden
          ? forbidden()
          : fail('SITE_UNREACHABLE', `The home page ${address} could not be read: ${got.reason}. It will be retried.`, true)
      }
      notes.push(`skipped ${address}: ${got.reason}`)
      continue
    }
    const page = readPage(got.body, got.url)
    pages.push(page)
    if (page.invalidJsonLd > 0) notes.push(`${got.url}: ${page.invalidJsonLd} JSON-LD block(s) that are not JSON, left out`)
    for (const link of page.links) plan(link)
  }
  if (queue.length > 0 && pages.length >= limits.maxPages) notes.push(`page budget reached (${limits.maxPages} pages): ${queue.length} more not fetched`)
  run.report({ pagesFetched: fetched, pagesPlanned: fetched, stage: 'crawling' })

  const offSiteList = [...offSite]
  for (const link of offSiteList.slice(0, MAX_OFF_SITE_NOTES)) {
    const host = new URL(link).hostname.replace(/^\[|\]$/g, '')
    const why = isIP(host) !== 0 && isForbiddenAddress(host) ? 'a loopback, private or reserved address, never fetched' : 'off-site'
    notes.push(`not followed ${link}: ${why}`)
  }
  if (offSiteList.length > MAX_OFF_SITE_NOTES) notes.push(`not followed: ${offSiteList.length - MAX_OFF_SITE_NOTES} more off-site links`)
  notes.unshift(`crawled ${pages.length} page${pages.length === 1 ? '' : 's'} of ${home.host} (${fetched} fetched, ${totalBytes} bytes)`)
  return { ok: true, pages, notes }
}
