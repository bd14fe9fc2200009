// The labelled sets the word model is never fitted on: the three UCI review sets and the Reddit comments. Their tuning
// halves feed the calibration only (eval/tune-sentiment.ts); their reporting halves are scored as sources the model
// has not seen (eval/sentiment-transfer.ts).
import type { RatedText } from './datasets.js'
import { REDDIT_SET, loadRedditSet } from './reddit-set.js'
import { UCI_SETS, loadUciSet } from './uci-sets.js'

export interface UnseenSet { name: string; kind: string; items: RatedText[] }

export function loadUnseenSets (): UnseenSet[] {
  return [
    ...UCI_SETS.map(set => ({ name: set.name, kind: set.kind, items: loadUciSet(set) })),
    { name: REDDIT_SET.name, kind: REDDIT_SET.kind, items: loadRedditSet() }
  ]
}
