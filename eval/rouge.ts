import { l as rougeLcs, n as rougeNGram } from 'js-rouge'

/** F1 scores in [0, 1]. */
export interface RougeScores { rouge1: number, rouge2: number, rougeL: number }

/**
 * The tokenization of Google's rouge-score (the reference implementation most papers report): lower-case, then every
 * run of ASCII letters and digits is a token, everything else separates tokens. No stemming (rouge-score's
 * `use_stemmer=False`). Accented and non-Latin letters are dropped, exactly as rouge-score drops them.
 */
export function rougeTokens (text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? []
}

/**
 * ROUGE-1, ROUGE-2 and ROUGE-L F1 of a candidate summary against one reference, as rouge-score computes them.
 * js-rouge does the n-gram and LCS counting with rouge-score's tokens. Its ROUGE-L splits both texts into sentences
 * by default (a summary-level LCS, rouge-score's "rougeLsum"); treating each text as one sentence gives the plain
 * "rougeL" that rouge-score reports. A side with no tokens scores 0, as in rouge-score (js-rouge would throw).
 */
export function rougeScores (candidate: string, reference: string): RougeScores {
  if (rougeTokens(candidate).length === 0 || rougeTokens(reference).length === 0) return { rouge1: 0, rouge2: 0, rougeL: 0 }
  const tokenizer = rougeTokens
  return {
    rouge1: rougeNGram(candidate, reference, { n: 1, tokenizer }),
    rouge2: rougeNGram(candidate, reference, { n: 2, tokenizer }),
    rougeL: rougeLcs(candidate, reference, { tokenizer, segmenter: text => [text] })
  }
}
