// The two wink-nlp modules wink-tokens.ts runs as they are: its tokenizer and the compiler of the model's token regexes.
// wink-nlp exports neither (its types cover readDoc and the Doc only); these are their signatures in wink-nlp 2.4.
declare module 'wink-nlp/src/compile-trex.js' {
  /** The model's token regexes, compiled. */
  const compileTRex: (trex: unknown) => unknown
  export default compileTRex
}

declare module 'wink-nlp/src/tokenizer.js' {
  /** What the tokenizer adds tokens to: wink-nlp's dd-wrapper.js, or anything with its three methods. */
  export interface TokenSink {
    /** Adds one token of `text` (a lexeme added if new); returns true. */
    _addToken: (text: string, category: number, precedingSpaces: number, nbsp: string | null) => boolean
    /** Adds the token(s) of `text` if it is a lexeme (a contraction adds its expansion) and returns 99; otherwise 0, adding nothing. */
    _addTokenIfInCache: (text: string, precedingSpaces: number, nbsp: string | null) => number
    /** Truthy if `text` is a lexeme. */
    isLexeme: (text: string) => unknown
  }
  const tokenizer: (trex: unknown, categories: Record<string, number>, preserve: unknown) => (sink: TokenSink, text: string) => void
  export default tokenizer
}
