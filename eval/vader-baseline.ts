// VADER itself, the vader-sentiment package's own polarity_scores, scored in the same run as Apiary: the label is
// the compound score's sign and the score is the compound. VADER has no calibrated confidence; |compound| stands in,
// so only its F1 and r are reported.
import vader from 'vader-sentiment'
import type { SentimentOutput } from './sentiment.js'

export function vaderBaseline (text: string): SentimentOutput {
  const compound = vader.SentimentIntensityAnalyzer.polarity_scores(text).compound
  return { sentiment: compound > 0 ? 'positive' : compound < 0 ? 'negative' : 'neutral', confidence: Math.abs(compound), score: compound }
}
