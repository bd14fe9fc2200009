import robots from 'robots-parser'
import { ROBOTS_AGENT, type SiteFetcher } from './fetch-page.js'

// robots-parser is CommonJS (module.exports is the function) while its types declare an ES default export.
const robotsParser = robots as unknown as typeof robots.default

const ROBOTS_MAX_BYTES = 512 * 1024

export type RobotsRules =
  | { ok: true, allows (url: string): boolean, sitemaps: string[], note: string }
  /** RFC 9309 §2.3.1.4: when robots.txt is unreachable (5xx, no answer), crawl nothing. */
  | { ok: false, forbidden: boolean, reason: string }

/**
 * The site's robots.txt, read with robots-parser and matched against our product token. A missing one
 * (4xx) allows everything, as RFC 9309 says.
 */
export async function readRobots (origin: URL, fetcher: SiteFetcher, signal: AbortSignal, follows: (url: URL) => boolean): Promise<RobotsRules> {
  const url = new URL('/robots.txt', origin).href
  const got = await fetcher.get(url, { accept: 'text/plain', maxBytes: ROBOTS_MAX_BYTES, signal, follows, wants: () => true })
  if (got.ok) {
    const rules = robotsParser(got.url, got.body)
    const sitemaps = rules.getSitemaps()
    return {
      ok: true,
      allows: (page) => rules.isAllowed(page, ROBOTS_AGENT) !== false,
      sitemaps,
      note: `robots.txt read (${got.bytes} bytes, ${sitemaps.length} sitemap${sitemaps.length === 1 ? '' : 's'} listed), its rules for ${ROBOTS_AGENT} applied`
    }
  }
  if (got.status >= 400 && got.status < 500) {
    return { ok: true, allows: () => true, sitemaps: [], note: `no robots.txt (${got.reason}): every page allowed` }
  }
  return { ok: false, forbidden: got.forbidden, reason: `robots.txt could not be read: ${got.reason}` }
}
