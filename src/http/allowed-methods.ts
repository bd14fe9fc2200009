/** A route path as Fastify writes it (`/api/bees/:id/execute`, `/docs/static/*`), as an anchored regex. */
function pathPattern (url: string): RegExp {
  const source = url.replace(/(:\w+(?:\([^)]*\))?)|(\*)|([^:*]+)/g, (_match, parameter?: string, wildcard?: string, literal?: string) => {
    if (parameter !== undefined) return '[^/]+'
    if (wildcard !== undefined) return '.*'
    return (literal ?? '').replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  })
  return new RegExp(`^${source}$`)
}

/**
 * The methods each route path answers, so that a wrong method on a known path can be told apart from an
 * unknown path: 405 with `Allow` (RFC 9110 §15.5.6) instead of 404. Fastify's router does not say which
 * methods a concrete URL has, so the paths are kept here, fed from an onRoute hook.
 */
export class AllowedMethods {
  readonly #paths = new Map<string, { pattern: RegExp, methods: Set<string> }>()

  add (url: string, methods: string | string[]): void {
    // A catch-all route (CORS's OPTIONS *) is on every path: it says nothing about which paths exist.
    if (url === '*') return
    let entry = this.#paths.get(url)
    if (entry === undefined) {
      entry = { pattern: pathPattern(url), methods: new Set() }
      this.#paths.set(url, entry)
    }
    for (const method of Array.isArray(methods) ? methods : [methods]) entry.methods.add(method.toUpperCase())
  }

  /** The methods of every route path that matches `path` (without its query), sorted; empty for an unknown path. */
  of (path: string): string[] {
    const methods = new Set<string>()
    for (const { pattern, methods: routeMethods } of this.#paths.values()) {
      if (pattern.test(path)) for (const method of routeMethods) methods.add(method)
    }
    return [...methods].sort()
  }
}
