import type { ReadPage } from '../crawl/read-page.js'
import type { PreparationInputs } from '../schemas.js'

/** Forms listed at most; a site with more is mostly repeating one (a newsletter box on every page). */
const MAX_FORMS = 20

interface Found { url: string, foundOn: string }

/** What an agent can use on the site: only what the crawl found there. */
export interface AgentManifest {
  name: string
  url: string
  openApi: Found[]
  mcp: Found[]
  openSearch: Found[]
  contactPoints: Array<{ type: 'email' | 'telephone', value: string, foundOn: string }>
  forms: Array<{ foundOn: string, action: string, method: string, label: string, fields: Array<{ name: string, type: string, required: boolean }> }>
}

/** The first item of each key, in order. */
function unique<T> (items: T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>()
  for (const item of items) if (!byKey.has(key(item))) byKey.set(key(item), item)
  return [...byKey.values()]
}

const collect = (pages: readonly ReadPage[], pick: (page: ReadPage) => string[]) =>
  unique(pages.flatMap((page) => pick(page).map((url) => ({ url, foundOn: page.url }))), (found) => found.url)

/**
 * The agent manifest: the OpenAPI and MCP endpoints the site links to, its OpenSearch description, its
 * contact points (mailto: and tel: links) and its forms with their fields. Serialized JSON, or the empty
 * string when the crawl found none of these: nothing is invented.
 */
export function agentManifest (inputs: PreparationInputs, pages: readonly ReadPage[]): string {
  const contactPoints = unique(pages.flatMap((page) => [
    ...page.found.emails.map((value) => ({ type: 'email' as const, value, foundOn: page.url })),
    ...page.found.phones.map((value) => ({ type: 'telephone' as const, value, foundOn: page.url }))
  ]), (point) => `${point.type}:${point.value}`)
  const forms = unique(pages.flatMap((page) => page.forms).filter((form) => form.fields.length > 0),
    (form) => `${form.method} ${form.action} ${form.fields.map((field) => field.name).join(',')}`).slice(0, MAX_FORMS)
  const manifest: AgentManifest = {
    name: inputs.businessName,
    url: pages[0]?.url ?? inputs.websiteUrl,
    openApi: collect(pages, (page) => page.found.openApi),
    mcp: collect(pages, (page) => page.found.mcp),
    openSearch: collect(pages, (page) => page.found.openSearch),
    contactPoints,
    forms: forms.map(({ page, ...form }) => ({ foundOn: page, ...form }))
  }
  const found = manifest.openApi.length + manifest.mcp.length + manifest.openSearch.length + contactPoints.length + forms.length
  return found === 0 ? '' : JSON.stringify(manifest, null, 2)
}
