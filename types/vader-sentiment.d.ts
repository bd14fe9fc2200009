// Minimal declaration for vader-sentiment (a CommonJS bundle that ships no types):
// the analyzer entry point plus the static rule steps vader-compound.ts reuses.
declare module 'vader-sentiment' {
  export interface VaderPolarityScores { neg: number; neu: number; pos: number; compound: number }

  /** What the rule steps read from the library's SentiText. */
  export interface VaderSentiText { words_and_emoticons: string[]; is_cap_diff: boolean }

  export const SentimentIntensityAnalyzer: {
    polarity_scores: (text: string) => VaderPolarityScores
    sentiment_valence: (valence: number, sentiText: VaderSentiText, item: string, index: number, sentiments: number[]) => number[]
    but_check: (wordsAndEmoticons: string[], sentiments: number[]) => number[]
    score_valence: (sentiments: number[], text: string) => VaderPolarityScores
  }
}
