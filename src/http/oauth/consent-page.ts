/** What the consent page shows and asks: the client, and the budget the wallet holder is about to grant. */
export interface ConsentView {
  action: string
  csrf: string
  clientName: string
  /** The host of a client_id that is a Client ID Metadata Document's URL: who vouches for the name; null for a registered client. */
  clientIdHost: string | null
  redirectHost: string
  /** Signed in by a one-time link: the wallet; null: the form asks for the wallet key. */
  signedInWallet: string | null
  currency: string | null
  /** The values to show again after a refusal. */
  values: { cap: string, perCallCap: string, bees: string, expiresInDays: string }
  /** What was wrong with the last submission, in words; null the first time. */
  error: string | null
}

export const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The page's only style, allowed by its hash in the CSP (no inline script, no framework). */
export const CONSENT_STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}' +
  'label{display:block;font-weight:600;margin-top:1rem}input{font:inherit;width:100%;padding:.4rem;box-sizing:border-box}' +
  '.hint{color:#444;font-size:.9rem}.error{border:2px solid #b00020;padding:.5rem 1rem;color:#b00020}' +
  'button{font:inherit;padding:.5rem 1.2rem;margin:1.5rem .5rem 0 0}:focus{outline:3px solid #1a5fb4;outline-offset:2px}'

/**
 * The consent page, rendered on the server: a plain form (labels on every field, usable by keyboard
 * alone, the error said in words and announced). Every value printed is escaped.
 */
export function consentPage (view: ConsentView): string {
  const field = (name: string, label: string, hint: string, value: string, attributes: string) =>
    `<label for="${name}">${label}</label><input id="${name}" name="${name}" value="${escape(value)}" aria-describedby="${name}-hint" ${attributes}>` +
    `<p class="hint" id="${name}-hint">${hint}</p>`
  const currency = view.currency === null ? 'the wallet\'s currency' : escape(view.currency)
  const signIn = view.signedInWallet === null
    ? field('wallet_key', 'Wallet key', 'The awt_ key <code>npm run wallet -- create</code> printed. It is not kept; it only proves the wallet is yours.', '', 'type="password" required autocomplete="off"')
    : `<p>Signed in as wallet <strong>${escape(view.signedInWallet)}</strong> by a one-time link.</p>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Connect ${escape(view.clientName)} to Apiary</title><style>${CONSENT_STYLE}</style></head>
<body><main>
<h1>Connect <q>${escape(view.clientName)}</q> to Apiary</h1>
<p>It will be sent back to <strong>${escape(view.redirectHost)}</strong>. It may call Bees and pay for them from your wallet, up to the budget you set here.</p>
${view.clientIdHost === null ? '' : `<p>Its name is the one it gives itself in the document it publishes at <strong>${escape(view.clientIdHost)}</strong>.</p>\n`}${view.error === null ? '' : `<div class="error" role="alert" id="error"><p>${escape(view.error)}</p></div>`}
<form method="post" action="${escape(view.action)}">
<input type="hidden" name="csrf" value="${escape(view.csrf)}">
${signIn}
${field('cap', `Total budget (${currency})`, 'The most it may spend in all.', view.values.cap, 'type="text" inputmode="decimal" required')}
${field('per_call_cap', `Most per call (${currency}), optional`, 'Leave empty for no limit per call.', view.values.perCallCap, 'type="text" inputmode="decimal"')}
${field('bees', 'Bees it may pay for', 'Bee ids separated by commas, or <code>all</code>.', view.values.bees, 'type="text" required')}
${field('expires_in_days', 'Expires after (days)', 'From 1 to 90.', view.values.expiresInDays, 'type="number" min="1" max="90" required')}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form></main></body></html>`
}
