// JavaScript's \s (white space and line terminators), one code unit at a time without a regex for ASCII: what the
// Bees' hand-written scans split on where their regexes split on \s.
const NON_ASCII_WHITE_SPACE = /\s/

/** Whether the code unit at `at` of `text` is \s. */
export function isWhiteSpaceAt (text: string, at: number): boolean {
  const code = text.charCodeAt(at)
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && NON_ASCII_WHITE_SPACE.test(text[at]!))
}
