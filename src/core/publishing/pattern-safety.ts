import safeRegex from 'safe-regex2'
import { isObject, SchemaRefused, type Json } from './json-schema.js'
import { eachSchema } from './schema-walk.js'

/** The largest count a regex quantifier at `at` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`) allows; 1 when there is none. */
function quantifierMax (pattern: string, at: number): number {
  const char = pattern[at]
  if (char === '*' || char === '+') return Infinity
  if (char === '?') return 1
  const braces = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at))
  if (braces === null) return 1
  if (braces[2] === undefined) return Number(braces[1])
  return braces[3] === '' ? Infinity : Number(braces[3])
}

/**
 * Walks a pattern's groups, calling `onClose` at each `)` with whether the group holds a `|` (at any
 * depth) and the index just after it, where its quantifier, if any, starts. Escapes and character
 * classes are skipped: a `(` or `|` in them is a plain character.
 */
function eachGroup (pattern: string, onClose: (alternates: boolean, after: number) => void): void {
  const open: boolean[] = []
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]
    if (char === '\\') {
      i++
    } else if (char === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++
    } else if (char === '(') {
      open.push(false)
    } else if (char === '|') {
      if (open.length > 0) open[open.length - 1] = true
    } else if (char === ')') {
      const alternates = open.pop() === true
      if (alternates && open.length > 0) open[open.length - 1] = true
      onClose(alternates, i + 1)
    }
  }
}

/**
 * Does the pattern repeat a group holding an alternation, as in `(a|a)*` or `(a|ab){20}`? When the
 * branches can match the same text, backtracking tries every way of splitting the input between
 * them: exponential, like nested quantifiers, yet safe-regex2 (which counts star height) lets it
 * through. Whether two branches overlap cannot be told without an engine, so any repeated
 * alternation is refused; a character class (`[ab]+`) says the same thing safely.
 */
function repeatsAlternation (pattern: string): boolean {
  let found = false
  eachGroup(pattern, (alternates, after) => { if (alternates && quantifierMax(pattern, after) > 1) found = true })
  return found
}

/**
 * The pattern with the `?` of optional groups removed, for safe-regex2. It counts `?` as a
 * repetition, so the everyday `\d+(\.\d+)?` would read as nested; but a group taken at most once
 * repeats nothing. A `?` inside a repeated group still counts (`(a?a?)+` is exponential).
 */
function withoutOptionalGroups (pattern: string): string {
  const drop = new Set<number>()
  eachGroup(pattern, (_alternates, after) => { if (pattern[after] === '?') drop.add(after) })
  return pattern.split('').filter((_unit, i) => !drop.has(i)).join('')
}

/**
 * A publisher's pattern runs against every caller's input, unauthenticated: one that backtracks
 * exponentially ("^(a+)+$" on "aaaa…!") would let anyone stall the event loop. Nested quantifiers
 * are caught by safe-regex2, repeated alternations by repeatsAlternation. safe-regex2 also refuses
 * what it cannot parse (lookbehind, for one): safe is what can be shown safe.
 */
function checkPattern (pattern: string, at: string): void {
  if (!safeRegex(withoutOptionalGroups(pattern)) || repeatsAlternation(pattern)) {
    throw new SchemaRefused(`${at}: pattern ${JSON.stringify(pattern)} may take exponential time to match: it nests quantifiers ` +
      '("(a+)+"), repeats an alternation ("(a|b)*"), or uses syntax the safety check cannot read (lookbehind). ' +
      'Write it without them, e.g. with a character class ("[ab]*"), or use "format" or "enum"')
  }
}

/** Checks every regular expression of a schema: each `pattern`, and the names of `patternProperties`. */
export function checkPatterns (schema: Json, where: string): void {
  eachSchema(schema, (node, path) => {
    if (typeof node.pattern === 'string') checkPattern(node.pattern, `${where}${path}`)
    if (isObject(node.patternProperties)) {
      for (const name of Object.keys(node.patternProperties)) checkPattern(name, `${where}${path}/patternProperties`)
    }
  })
}
