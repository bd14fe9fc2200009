// A text as wink-nlp's readDoc tokenizes it, in flat arrays instead of its document, with a text's unknown words kept
// for that text only (wink-lexicon.ts).
//
// wink-nlp's tokenizer (wink-nlp/src/tokenizer.js) cuts the text at runs of spaces and of line breaks, then reads each
// piece: a lexeme becomes its token(s); otherwise the first of its category regexes that matches decides (a word, a
// word and one closing mark, a number, a URL, ...), and what none matches goes to its recursive tokenizer. Most pieces
// of prose are lexemes, words or a word and a mark, and those are read here by hand, as wink reads them; any other
// piece is handed to wink's own tokenizer, alone. The pieces run through wink's regexes took about 250 ns each.
import compileTRex from 'wink-nlp/src/compile-trex.js'
import tokenizer, { type TokenSink } from 'wink-nlp/src/tokenizer.js'
import { isWhiteSpaceAt } from '../white-space.js'
import { grown } from '../grow.js'
import { CATEGORIES, core, expansionLexeme, expansionNormal, expansionOf, Lexemes } from './wink-lexicon.js'

const UNKNOWN = 0
const FOUND = 99

interface CompiledTRex { ltc: Array<[RegExp, number]>, helpers: Record<string, RegExp> }
const trex = compileTRex(core.trex) as CompiledTRex
// The model's splitter, and its first two category regexes (a word; a word and one closing mark), as read by hand below.
const SPLITTER = '([ \\u00a0\\u2002-\\u2005\\u2009\\u200a\\u202f\\u205f]+|[\\n\\r\\t]+)'
const LETTERS = '[a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u00FF\\u0300-\\u036f\\u2060]+'
const [[word, wordCategory] = [], [wordAndMark, wordAndMarkCategory] = []] = trex.ltc
if (trex.helpers.splitter?.source !== SPLITTER || word?.source !== `^${LETTERS}$` || wordCategory !== CATEGORIES.word ||
  wordAndMark?.source !== `^${LETTERS}[\\’\\”\\"\\]\\)\\}\\…\\,\\.\\!\\;\\?\\/\\:]$` || wordAndMarkCategory !== CATEGORIES.wordRP) {
  throw new Error('wink-eng-lite-web-model: its splitter or first token regexes are not the ones wink-tokens.ts reads by hand')
}
const WORD = word
const WORD_AND_MARK = wordAndMark
const PUNCTUATION = CATEGORIES.punctuation!
const WORD_CATEGORY = CATEGORIES.word!

/** wink-nlp cuts at runs of these: spaces (a piece's preceding spaces) ... */
const isSpace = (code: number): boolean => code === 32 || code === 0xa0 || (code >= 0x2002 && code <= 0x2005) || code === 0x2009 ||
  code === 0x200a || code === 0x202f || code === 0x205f
/** ... and line breaks and tabs, which are pieces of their own. */
const isBreak = (code: number): boolean => code === 10 || code === 13 || code === 9
const isAsciiLetter = (code: number): boolean => (code >= 97 && code <= 122) || (code >= 65 && code <= 90)
/** The ASCII closing marks of the word-and-mark regex. */
const isAsciiMark = (code: number): boolean => code === 34 || code === 93 || code === 41 || code === 125 || code === 44 || code === 46 ||
  code === 33 || code === 59 || code === 63 || code === 47 || code === 58
/**
 * A run of more non-white-space code units than this is cut, as if a space followed each LONG_RUN of them. wink's
 * tokenizer takes time quadratic in the length of a run without white space: 20,000 "#" or "a-" took a second. No
 * word is this long, and none of the 23,703 ground-truth texts has such a run, so cutting changes no score a person
 * would write.
 */
export const LONG_RUN = 64

type Kind = 'word' | 'word and mark' | 'other'

/** What wink's first two category regexes make of a piece that is not a lexeme. */
function kindOf (piece: string): Kind {
  let ascii = true
  for (let i = 0; i < piece.length && ascii; i++) ascii = piece.charCodeAt(i) < 128
  if (!ascii) return WORD.test(piece) ? 'word' : WORD_AND_MARK.test(piece) ? 'word and mark' : 'other'
  const last = piece.length - 1
  for (let i = 0; i < last; i++) if (!isAsciiLetter(piece.charCodeAt(i))) return 'other'
  const code = piece.charCodeAt(last)
  if (isAsciiLetter(code)) return 'word'
  return last > 0 && isAsciiMark(code) ? 'word and mark' : 'other'
}

/** One text's tokens, index by index. */
export class Tokens {
  readonly lexemes = new Lexemes()
  /** The token's lexeme. */
  lexeme = new Int32Array(64)
  /** What the automata read: the lexeme's normal form (wink's mapRawTokens2UIdOfNormal). */
  normal = new Int32Array(64)
  /** 1 where white space came before the token. */
  spaced = new Uint8Array(64)
  length = 0

  readonly #tokenize = tokenizer(compileTRex(core.trex), CATEGORIES, core.preserve)
  readonly #sink: TokenSink = {
    _addToken: (text, category, precedingSpaces) => {
      this.#add(text, category, precedingSpaces)
      return true
    },
    _addTokenIfInCache: (text, precedingSpaces) => this.#addIfKnown(text, precedingSpaces) ? FOUND : UNKNOWN,
    isLexeme: (text) => this.lexemes.indexOf(text) !== -1
  }

  /**
   * Tokenizes `text` as wink-nlp's readDoc tokenizes it with a space put after every LONG_RUN code units of a run
   * without white space that goes on, replacing what was read before.
   */
  read (text: string): void {
    this.lexemes.clear()
    this.length = 0
    let spaced = false
    let start = 0
    let run = 0
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (isSpace(code) || isBreak(code)) {
        spaced = this.#flush(text, start, i, spaced)
        const space = isSpace(code)
        let end = i + 1
        while (end < text.length && (space ? isSpace(text.charCodeAt(end)) : isBreak(text.charCodeAt(end)))) end++
        if (space) {
          spaced = true
        } else {
          this.#piece(text, i, end, spaced)
          spaced = false
        }
        start = end
        i = end - 1
        run = 0
      } else if (isWhiteSpaceAt(text, i)) {
        // White space wink does not cut at (a vertical tab, U+3000, ...) still ends a run.
        run = 0
      } else if (run === LONG_RUN) {
        // The cut of a long run: the piece ends here and the next starts with a space before it.
        this.#flush(text, start, i, spaced)
        spaced = true
        start = i
        run = 1
      } else {
        run++
      }
    }
    this.#flush(text, start, text.length, spaced)
  }

  /** Reads the piece from start to end, if any; returns whether the next piece has a space before it. */
  #flush (text: string, start: number, end: number, spaced: boolean): boolean {
    if (start === end) return spaced
    this.#piece(text, start, end, spaced)
    return false
  }

  /** One piece between spaces, or one run of line breaks: text.slice(start, end), made a string only if no lexeme. */
  #piece (text: string, start: number, end: number, spaced: boolean): void {
    const precedingSpaces = spaced ? 1 : 0
    const known = this.lexemes.indexAt(text, start, end)
    if (known !== -1) {
      this.#addKnown(known, precedingSpaces)
      return
    }
    const piece = text.slice(start, end)
    const kind = kindOf(piece)
    if (kind === 'word') {
      this.#add(piece, WORD_CATEGORY, precedingSpaces)
    } else if (kind === 'word and mark') {
      // wink's processWordRP: two letters and a period stay one word ("Mr." is a lexeme; "Zx." is not).
      if (piece.length === 2 && piece[1] === '.') {
        this.#add(piece, WORD_CATEGORY, precedingSpaces)
      } else {
        this.#add(piece.slice(0, -1), WORD_CATEGORY, precedingSpaces)
        this.#add(piece.slice(-1), PUNCTUATION, 0)
      }
    } else {
      // A space before the piece is all wink's tokenizer needs to give its first token the space.
      this.#tokenize(this.#sink, spaced ? ' ' + piece : piece)
    }
  }

  #add (text: string, category: number, precedingSpaces: number): void {
    const lexeme = this.lexemes.add(text, category)
    this.#push(lexeme, this.lexemes.normal(lexeme), precedingSpaces)
  }

  #addIfKnown (text: string, precedingSpaces: number): boolean {
    const lexeme = this.lexemes.indexOf(text)
    if (lexeme === -1) return false
    this.#addKnown(lexeme, precedingSpaces)
    return true
  }

  /** The lexeme's token, or a contraction's expansion's tokens. */
  #addKnown (lexeme: number, precedingSpaces: number): void {
    const expansion = expansionOf(lexeme)
    if (expansion === null) {
      this.#push(lexeme, this.lexemes.normal(lexeme), precedingSpaces)
      return
    }
    // A contraction: its expansion's tokens ("ca", "n't"), white space before the first only.
    for (let k = 0; k < expansion.count; k += 4) {
      const at = expansion.start + k
      this.#push(expansionLexeme(at), expansionNormal(at), k === 0 ? precedingSpaces : 0)
    }
  }

  #push (lexeme: number, normal: number, precedingSpaces: number): void {
    if (this.length === this.lexeme.length) {
      this.lexeme = grown(this.lexeme, this.length + 1)
      this.normal = grown(this.normal, this.length + 1)
      this.spaced = grown(this.spaced, this.length + 1)
    }
    this.lexeme[this.length] = lexeme
    this.normal[this.length] = normal
    this.spaced[this.length] = precedingSpaces > 0 ? 1 : 0
    this.length += 1
  }
}
