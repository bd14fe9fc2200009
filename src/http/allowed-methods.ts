/** A path segment as the router hands it to a parameter's regex: percent-decoded. */
function decoded (segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * A route path as Fastify writes it (`/api/bees/:id/execute`, `/docs/static/*`) as a test of concrete paths. A
 * parameter with a regex (`:id([^.]+)`) takes only the values the router would give that route, so its route does
 * not claim the paths it never serves.
 */
function pathMatcher (url: string): (path: string) => boolean {
  const shapes: RegExp[] = []
  const source = url.replace(/(:\w+(?:\(([^)]*)\))?)|(\*)|([^:*]+)/g, (_match, parameter?: string, shape?: string, wildcard?: string, literal?: string) => {
    if (parameter !== undefined) {
      if (shape === undefined) return '[^/]+'
      shapes.push(new RegExp(`^(?:${shape})$`))
      return '([^/]+)'
    }
    if (wildcard !== undefined) return '.*'
    return (literal ?? '').replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  })
  const pattern = new RegExp(`^${source}$`)
  return (path) => {
    const match = pattern.exec(path)
    return match !== null && shapes.every((shape, index) => shape.test(decoded(match[index + 1] ?? '')))
  }
}

/**
 * The methods each route path answers, so that a wrong method on a known path can be told apart from an
 * unknown path: 405 with `Allow` (RFC 9110 §15.5.6) instead of 404. Fastify's router does not say which
 * methods a concrete URL has, so the paths are kept here, fed from an onRoute hook.
 */
export class AllowedMethods {
  readonly #paths = new Map<string, { matches: (path: string) => boolean, methods: Set<string> }>()

  add (url: string, methods: string | string[]): void {
    // A catch-all route (CORS's OPTIONS *) is on every path: it says nothing about which paths exist.
    if (url === '*') return
    let entry = this.#paths.get(url)
    if (entry === undefined) {
      entry = { matches: pathMatcher(url), methods: new Set() }
      this.#paths.set(url, entry)
    }
    for (const method of Array.isArray(methods) ? methods : [methods]) entry.methods.add(method.toUpperCase())
  }

  /** The methods of every route path that matches `path` (without its query), sorted; empty for an unknown path. */
  of (path: string): string[] {
    const methods = new Set<string>()
    for (const { matches, methods: routeMethods } of this.#paths.values()) {
      if (matches(path)) for (const method of routeMethods) methods.add(method)
    }
    return [...methods].sort()
  }
}
