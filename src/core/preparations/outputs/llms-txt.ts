import type { ReadPage } from '../crawl/read-page.js'
import type { PreparationInputs } from '../schemas.js'

/** Pages listed under "Key pages" at most; the others go to "Optional". */
const MAX_KEY_PAGES = 12
const NOTE_CHARS = 160

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

/** Markdown link text cannot hold unescaped brackets, nor a URL spaces or parentheses. */
const linkText = (text: string) => oneLine(text).replace(/([\\[\]])/g, '\\$1')
const linkTarget = (url: string) => url.replace(/[ ()]/g, (c) => encodeURIComponent(c))

/** A page's note: its meta description, else the start of its main text, cut at a word. */
function noteOf (page: ReadPage): string {
  const text = oneLine(page.description !== '' ? page.description : page.mainText)
  if (text.length <= NOTE_CHARS) return text
  const cut = text.slice(0, NOTE_CHARS)
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), NOTE_CHARS / 2))}…`
}

const entry = (page: ReadPage) => {
  const note = noteOf(page)
  return `- [${linkText(page.title !== '' ? page.title : new URL(page.url).pathname)}](${linkTarget(page.url)})${note === '' ? '' : `: ${note}`}`
}

/** Top-level pages (the home page and one path segment deep) are the key pages; deeper ones optional. */
const depth = (page: ReadPage) => new URL(page.url).pathname.split('/').filter((part) => part !== '').length

/**
 * The site's llms.txt in the llmstxt.org format: H1 the business, a blockquote summary, a paragraph of
 * its services and audience, "Key pages" as a link list, and an "Optional" list of the other pages.
 */
export function llmsTxt (inputs: PreparationInputs, pages: readonly ReadPage[]): string {
  const [home, ...others] = pages
  const top = others.filter((page) => depth(page) <= 1)
  const key = [...(home === undefined ? [] : [home]), ...top.slice(0, MAX_KEY_PAGES - 1)]
  const optional = others.filter((page) => !key.includes(page))
  const lines = [`# ${oneLine(inputs.businessName)}`, '', `> ${oneLine(inputs.description)}`, '']
  lines.push(`Primary services: ${inputs.primaryServices.map(oneLine).join('; ')}.`)
  if (inputs.targetAudience.trim() !== '') lines.push(`Audience: ${oneLine(inputs.targetAudience)}.`)
  lines.push('', '## Key pages', '', ...key.map(entry))
  if (optional.length > 0) lines.push('', '## Optional', '', ...optional.map(entry))
  return `${lines.join('\n')}\n`
}
