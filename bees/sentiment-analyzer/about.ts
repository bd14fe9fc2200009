// What the route and the catalog say about the analyzer, without loading it: its models load after the server
// listens (plugins/warm-up.ts), and these are needed before.

export const SENTIMENT_PROVIDER = 'wink-nlp (wink-eng-lite-web-model) + vader-sentiment + apiary word model'

/** Documented upper bound on input length; the HTTP layer rejects longer text. */
export const SENTIMENT_MAX_CHARS = 20000
