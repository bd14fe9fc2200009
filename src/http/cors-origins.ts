/**
 * Why an entry of CORS_ORIGINS is not an origin as a browser writes it in `Origin`, or null. The list is
 * matched exactly, so an entry with a path, a trailing slash, upper case or a default port would never
 * match: it is refused with the form that would.
 */
export function corsOriginProblem (entry: string): string | null {
  const url = URL.canParse(entry) ? new URL(entry) : null
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return `"${entry}" is not an origin: write scheme://host[:port] with http or https, e.g. https://app.example.com`
  }
  if (url.origin !== entry) return `"${entry}" is not an origin as browsers send it: write "${url.origin}"`
  return null
}
