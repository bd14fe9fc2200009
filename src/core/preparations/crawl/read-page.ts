import { Readability } from '@mozilla/readability'
import { load, type CheerioAPI } from 'cheerio'
import { parseHTML } from 'linkedom'

/** A form on the site, as an agent would fill it in. */
export interface FoundForm {
  page: string
  action: string
  method: string
  /** The form's own label: its aria-label, name or id, or the heading before it. */
  label: string
  fields: Array<{ name: string, type: string, required: boolean }>
}

/** Machine-usable things a page links to. */
export interface FoundLinks {
  openApi: string[]
  mcp: string[]
  openSearch: string[]
  emails: string[]
  phones: string[]
}

export interface ReadPage {
  url: string
  title: string
  /** The meta description, or '' when the page has none. */
  description: string
  mainText: string
  /** Absolute http(s) links, without fragments. */
  links: string[]
  /** Each parsed JSON-LD block the page carries; blocks that are not JSON are left out (see invalidJsonLd). */
  jsonLd: unknown[]
  invalidJsonLd: number
  forms: FoundForm[]
  found: FoundLinks
}

/** Readability needs enough text to find an article; below this a page's own text is taken as it is. */
const MIN_ARTICLE_CHARS = 200

const squash = (text: string) => text.replace(/\s+/g, ' ').trim()

function absolute (href: string | undefined, base: URL): URL | null {
  if (href === undefined || href.trim() === '') return null
  try {
    return new URL(href.trim(), base)
  } catch {
    return null
  }
}

/** Blocks of running text; headings are left out, as they read as fragments once the text is summarized. */
const TEXT_BLOCKS = 'p, li, dt, dd, blockquote, figcaption, td, th'

/** The text of `root`'s outermost text blocks, one a line, or all its text when it has none. */
function blockText ($: CheerioAPI, root: ReturnType<CheerioAPI>): string {
  const blocks = root.find(TEXT_BLOCKS).toArray().filter((element) => $(element).parents(TEXT_BLOCKS).length === 0)
  const lines = blocks.map((element) => squash($(element).text())).filter((line) => line !== '')
  return lines.length > 0 ? lines.join('\n') : squash(root.text())
}

/** The main text: Readability's article when it finds one, else the text of <main> or <body>. */
function mainTextOf (html: string, $: CheerioAPI): string {
  const { document } = parseHTML(html)
  const article = new Readability(document as never).parse()
  if (typeof article?.content === 'string' && squash(article.textContent ?? '').length >= MIN_ARTICLE_CHARS) {
    const $article = load(article.content)
    return blockText($article, $article.root())
  }
  const body = $('main').length > 0 ? $('main') : $('body')
  body.find('script, style, noscript, template, nav, footer, form').remove()
  return blockText($, body)
}

function formsOf ($: CheerioAPI, base: URL): FoundForm[] {
  return $('form').toArray().map((form) => {
    const element = $(form)
    const heading = squash(element.prevAll('h1, h2, h3').first().text())
    const label = element.attr('aria-label') ?? element.attr('name') ?? element.attr('id') ?? heading
    const fields = element.find('input, textarea, select').toArray().flatMap((field) => {
      const input = $(field)
      const name = input.attr('name')
      // An <input> without a type is a text field.
      const type = (input.attr('type') ?? (field.tagName === 'input' ? 'text' : field.tagName)).toLowerCase()
      if (name === undefined || ['hidden', 'submit', 'button', 'image', 'reset'].includes(type)) return []
      return [{ name, type, required: input.attr('required') !== undefined }]
    })
    return {
      page: base.href,
      action: absolute(element.attr('action'), base)?.href ?? base.href,
      method: (element.attr('method') ?? 'get').toUpperCase(),
      label,
      fields
    }
  })
}

const OPENAPI_PATH = /(?:^|\/)(?:openapi|swagger)(?:\.v\d+)?\.(?:json|ya?ml)$/i
const MCP_PATH = /(?:^|\/)(?:\.well-known\/)?mcp(?:\.json)?\/?$/i

function foundLinksOf ($: CheerioAPI, base: URL, hrefs: URL[]): FoundLinks {
  const attr = (selector: string) => $(selector).toArray().flatMap((element) => absolute($(element).attr('href'), base)?.href ?? [])
  const web = hrefs.filter((url) => url.protocol === 'http:' || url.protocol === 'https:')
  return {
    // RFC 8631: service-desc names a machine-readable description of the service.
    openApi: [...attr('link[rel~="service-desc"], a[rel~="service-desc"]'), ...web.filter((url) => OPENAPI_PATH.test(url.pathname)).map((url) => url.href)],
    mcp: [...attr('link[rel~="mcp"]'), ...web.filter((url) => MCP_PATH.test(url.pathname)).map((url) => url.href)],
    openSearch: attr('link[rel~="search"][type="application/opensearchdescription+xml"]'),
    emails: hrefs.filter((url) => url.protocol === 'mailto:').map((url) => decodeURIComponent(url.pathname)).filter((email) => email.includes('@')),
    phones: hrefs.filter((url) => url.protocol === 'tel:').map((url) => decodeURIComponent(url.pathname))
  }
}

/** What the crawl learns from one HTML page, parsed with cheerio (and Readability over linkedom for the main text). */
export function readPage (html: string, pageUrl: string): ReadPage {
  const $ = load(html)
  const base = absolute($('base[href]').attr('href'), new URL(pageUrl)) ?? new URL(pageUrl)
  const hrefs = $('a[href], area[href]').toArray().flatMap((element) => absolute($(element).attr('href'), base) ?? [])
  const links = [...new Set(hrefs.filter((url) => url.protocol === 'http:' || url.protocol === 'https:').map((url) => {
    url.hash = ''
    return url.href
  }))]
  let invalidJsonLd = 0
  const jsonLd = $('script[type="application/ld+json"]').toArray().flatMap((script) => {
    try {
      return [JSON.parse($(script).text()) as unknown]
    } catch {
      invalidJsonLd++
      return []
    }
  })
  const found = foundLinksOf($, base, hrefs)
  const forms = formsOf($, base)
  return {
    url: pageUrl,
    title: squash($('title').first().text()) || squash($('h1').first().text()),
    description: squash($('meta[name="description"]').attr('content') ?? ''),
    mainText: mainTextOf(html, $),
    links,
    jsonLd,
    invalidJsonLd,
    forms,
    found
  }
}
