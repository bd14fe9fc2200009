/** Where a text stops being JSON and what was expected there; null when it is JSON. */
export interface JsonSyntaxError { offset: number, expected: string }

const WHITESPACE = new Set([' ', '\t', '\n', '\r'])
const NUMBER_OR_LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y

/** The end of the string that opens at `start`, or the offset of what breaks it (negative: -1 - offset). */
function stringEnd (text: string, start: number): number {
  let at = start + 1
  while (at < text.length) {
    const char = text.charCodeAt(at)
    if (char === 0x22) return at + 1
    if (char < 0x20) return -1 - at
    if (char === 0x5c) {
      ESCAPE.lastIndex = at
      if (!ESCAPE.test(text)) return -1 - at
      at = ESCAPE.lastIndex
    } else {
      at++
    }
  }
  return -1 - at
}

/**
 * The first place `text` breaks RFC 8259, found in one pass with no recursion (any depth, any length), so a refusal
 * can say where without quoting the body: JSON.parse's own messages quote it, and Fastify's say nothing.
 */
export function jsonSyntaxError (text: string): JsonSyntaxError | null {
  const open: string[] = []
  let expect: 'value' | 'value or ]' | 'name' | 'name or }' | 'after' = 'value'
  let at = 0
  for (;;) {
    while (at < text.length && WHITESPACE.has(text[at] as string)) at++
    if (at >= text.length) {
      if (open.length === 0 && expect === 'after') return null
      return { offset: at, expected: open.length === 0 && expect === 'value' ? 'a value' : 'the rest of the JSON, but the body ends there' }
    }
    const char = text[at]
    const close = open.at(-1) === '{' ? '}' : ']'
    if (expect === 'after') {
      if (open.length === 0) return { offset: at, expected: 'nothing more after the JSON value' }
      if (char === ',') expect = close === '}' ? 'name' : 'value'
      else if (char === close) open.pop()
      else return { offset: at, expected: `',' or '${close}'` }
      at++
    } else if (expect === 'name' || expect === 'name or }') {
      if (char === '}' && expect === 'name or }') {
        open.pop()
        at++
        expect = 'after'
        continue
      }
      if (char !== '"') return { offset: at, expected: 'a property name in double quotes' }
      const end = stringEnd(text, at)
      if (end < 0) return { offset: -1 - end, expected: 'the rest of a string (a closing quote, no control characters, valid escapes)' }
      at = end
      while (at < text.length && WHITESPACE.has(text[at] as string)) at++
      if (at >= text.length) continue
      if (text[at] !== ':') return { offset: at, expected: '\':\' after the property name' }
      at++
      expect = 'value'
    } else if (char === ']' && expect === 'value or ]') {
      open.pop()
      at++
      expect = 'after'
    } else if (char === '{' || char === '[') {
      open.push(char)
      at++
      expect = char === '{' ? 'name or }' : 'value or ]'
    } else if (char === '"') {
      const end = stringEnd(text, at)
      if (end < 0) return { offset: -1 - end, expected: 'the rest of a string (a closing quote, no control characters, valid escapes)' }
      at = end
      expect = 'after'
    } else {
      NUMBER_OR_LITERAL.lastIndex = at
      if (!NUMBER_OR_LITERAL.test(text)) return { offset: at, expected: 'a value (an object, array, string, number, true, false or null)' }
      at = NUMBER_OR_LITERAL.lastIndex
      expect = 'after'
    }
  }
}
