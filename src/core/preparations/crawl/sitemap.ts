import { load } from 'cheerio'
import type { SiteFetcher } from './fetch-page.js'

const SITEMAP_MAX_BYTES = 5 * 1024 * 1024
/** Sitemaps read in all: those listed (or /sitemap.xml) and the children of sitemap indexes. */
const MAX_SITEMAPS = 5

export interface SitemapPages { pages: string[], notes: string[] }

const isXml = (contentType: string) => /\bxml\b/i.test(contentType) || contentType === ''

/** Page addresses from the site's sitemaps (sitemaps.org XML, indexes one level deep), in their order. */
export async function readSitemaps (
  listed: string[], origin: URL, fetcher: SiteFetcher, signal: AbortSignal, follows: (url: URL) => boolean
): Promise<SitemapPages> {
  const queue = listed.length > 0 ? [...listed] : [new URL('/sitemap.xml', origin).href]
  const pages: string[] = []
  const notes: string[] = []
  let read = 0
  while (queue.length > 0 && read < MAX_SITEMAPS) {
    const url = queue.shift() as string
    read++
    const got = await fetcher.get(url, { accept: 'application/xml, text/xml', maxBytes: SITEMAP_MAX_BYTES, signal, follows, wants: isXml })
    if (!got.ok) {
      // No sitemap at the default address is common and no problem; a listed one that fails is worth a note.
      if (listed.length > 0 || got.status !== 404) notes.push(`sitemap ${url} skipped: ${got.reason}`)
      continue
    }
    const $ = load(got.body, { xml: true })
    const locs = (selector: string) => $(selector).toArray().map((element) => $(element).text().trim()).filter((loc) => URL.canParse(loc))
    const children = locs('sitemap > loc')
    const found = locs('url > loc')
    queue.push(...children)
    pages.push(...found)
    notes.push(`sitemap ${url} read: ${found.length} page${found.length === 1 ? '' : 's'}${children.length > 0 ? `, ${children.length} child sitemaps` : ''}`)
  }
  return { pages, notes }
}
