import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/**
 * The shell examples of the documentation and what they print. A `sh` block is preceded by a marker comment:
 *
 *     <!-- example: run -->                       run it against a started service
 *     <!-- example: run; vary: p50Ms, p95Ms -->   the same, these JSON keys' values matched by type only
 *     <!-- example: skip: needs Docker -->        not run here, and why
 *
 * A fenced block right after a runnable one (only blank lines between) is what it prints. A line
 * `NAME=value … npm start &` in a runnable example is the service it talks to: the runner starts it with those
 * variables instead.
 */
export interface Example {
  /** `file:line` of the `sh` block, for messages. */
  where: string
  script: string
  marker: { run: true, vary: string[] } | { run: false, reason: string } | undefined
  /** What the example prints, when the documentation shows it. */
  printed: string | undefined
}

const fence = /^(\s*)```(\S*)\s*$/
const markerComment = /^<!--\s*example:\s*(.*?)\s*-->\s*$/

/** README.md and every Markdown file under docs/, relative to `root`. */
export function documentationFiles (root: string): string[] {
  const walk = (dir: string): string[] => readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [])
  return ['README.md', ...walk('docs').sort()]
}

interface Block { line: number, lang: string, body: string, end: number }

function blocks (lines: string[]): Block[] {
  const found: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i] ?? '')
    if (open === null) continue
    const indent = open[1] ?? ''
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j] ?? ''); j++) body.push((lines[j] ?? '').slice(indent.length))
    found.push({ line: i + 1, lang: open[2] ?? '', body: body.join('\n'), end: j })
    i = j
  }
  return found
}

function parseMarker (text: string): Example['marker'] {
  const skip = /^skip:\s*(.+)$/.exec(text)
  if (skip !== null) return { run: false, reason: skip[1] ?? '' }
  const run = /^run(?:;\s*vary:\s*(.+))?$/.exec(text)
  if (run === null) return undefined
  return { run: true, vary: (run[1] ?? '').split(',').map((key) => key.trim()).filter((key) => key !== '') }
}

/** Every `sh` block of one Markdown file, with its marker and printed answer. */
export function examplesOf (root: string, file: string): Example[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n')
  const all = blocks(lines)
  return all.flatMap((block, index) => {
    if (block.lang !== 'sh') return []
    let above = block.line - 2
    while (above >= 0 && (lines[above] ?? '').trim() === '') above--
    const comment = markerComment.exec((lines[above] ?? '').trim())
    const next = all[index + 1]
    const between = next === undefined ? [] : lines.slice(block.end + 1, next.line - 1)
    const printed = next !== undefined && next.lang !== 'sh' && between.every((line) => line.trim() === '') ? next.body : undefined
    return [{ where: `${relative(root, join(root, file))}:${block.line}`, script: block.body, marker: comment === null ? undefined : parseMarker(comment[1] ?? ''), printed }]
  })
}

const isoTimestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/
/** Prefixed ids and secrets (`wal_…`, `awt_…`, `apk_…`, `pub_…`, `tok_…`): matched by prefix and alphabet. */
const prefixedId = /^([a-z]{2,4}_)(?:[A-Za-z0-9_-]{8,}|…)$/
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const jwt = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/
const anything = '…'

/** Whether a printed JSON value describes the actual one; returns the path of the first difference, or undefined. */
function jsonDifference (printed: unknown, actual: unknown, vary: Set<string>, path: string): string | undefined {
  if (printed === anything) return undefined
  if (Array.isArray(printed)) {
    if (!Array.isArray(actual)) return path
    if (printed.length === 1 && printed[0] === anything) return undefined
    if (printed.length !== actual.length) return `${path} (${actual.length} items, not ${printed.length})`
    for (const [i, item] of printed.entries()) {
      const difference = jsonDifference(item, actual[i], vary, `${path}[${i}]`)
      if (difference !== undefined) return difference
    }
    return undefined
  }
  if (printed !== null && typeof printed === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return path
    const keys = Object.keys(printed)
    const actualKeys = Object.keys(actual)
    if (keys.join() !== actualKeys.join()) return `${path} (keys ${actualKeys.join(', ')})`
    for (const key of keys) {
      const left = (printed as Record<string, unknown>)[key]
      const right = (actual as Record<string, unknown>)[key]
      if (vary.has(key) && typeof left === typeof right) continue
      const difference = jsonDifference(left, right, vary, `${path}.${key}`)
      if (difference !== undefined) return difference
    }
    return undefined
  }
  if (typeof printed === 'string' && typeof actual === 'string') {
    for (const shape of [isoTimestamp, uuid, jwt]) {
      if (shape.test(printed)) return shape.test(actual) ? undefined : path
    }
    const id = prefixedId.exec(printed)
    if (id !== null) return actual.startsWith(id[1] ?? '') && prefixedId.test(actual) ? undefined : path
  }
  return Object.is(printed, actual) ? undefined : `${path} (${JSON.stringify(actual)}, not ${JSON.stringify(printed)})`
}

function escape (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The printed text as a pattern: `…` stands for anything, timestamps and `vary` keys' numbers for their shape. */
function textPattern (printed: string, vary: Set<string>): RegExp {
  let pattern = printed.split(/\s*…\s*/).map(escape).join('[\\s\\S]*?')
  pattern = pattern.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\\\.\d+)?Z/g, '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z')
  for (const key of vary) pattern = pattern.replace(new RegExp(`("${escape(key)}":)-?[0-9][0-9\\\\.e+-]*`, 'g'), '$1-?[0-9.e+-]+')
  return new RegExp(`^${pattern}$`)
}

/** Undefined when `actual` is what the documentation prints, else a sentence saying where it differs. */
export function difference (printed: string, actual: string, vary: string[] = []): string | undefined {
  const keys = new Set(vary)
  const expected = printed.trim()
  const got = actual.trim()
  let printedJson: unknown
  try {
    printedJson = JSON.parse(expected)
  } catch {
    return textPattern(expected, keys).test(got) ? undefined : 'the output differs from the printed text'
  }
  let actualJson: unknown
  try {
    actualJson = JSON.parse(got)
  } catch {
    return 'the output is not JSON'
  }
  const where = jsonDifference(printedJson, actualJson, keys, '$')
  return where === undefined ? undefined : `the output differs at ${where}`
}

const startLine = /^((?:[A-Z][A-Z0-9_]*=\S+\s+)+)npm start\s*&?\s*$/

/**
 * The example without the line that starts the service, and the variables that line starts it with. A value `$NAME`
 * is the example's own variable (`ADMIN_TOKEN=$ADMIN_TOKEN npm start &`), taken from `env`, what the example runs with.
 */
export function serverStart (script: string, env: Record<string, string> = {}): { script: string, serverEnv: Record<string, string> } {
  const serverEnv: Record<string, string> = {}
  const kept = script.split('\n').filter((line) => {
    const start = startLine.exec(line.trim())
    if (start === null) return true
    for (const assignment of (start[1] ?? '').trim().split(/\s+/)) {
      const [name = '', ...value] = assignment.split('=')
      const given = value.join('=').replace(/^'(.*)'$/, '$1')
      const variable = /^\$\{?([A-Z][A-Z0-9_]*)\}?$/.exec(given)
      serverEnv[name] = variable === null ? given : env[variable[1] ?? ''] ?? ''
    }
    return false
  })
  return { script: kept.join('\n'), serverEnv }
}
