import { createHash } from 'node:crypto'
import type { FastifyReply } from 'fastify'
import { CONSENT_STYLE, escape } from './consent-page.js'

const STYLE_HASH = `'sha256-${createHash('sha256').update(CONSENT_STYLE).digest('base64')}'`

/**
 * Sends one of the OAuth pages: its style allowed by hash and nothing else (no script at all), forms
 * posting only here or, once answered, to the client's redirect (`formTarget`, as browsers apply
 * form-action to the redirect a form's answer makes), never framed, never cached.
 */
export async function sendPage (reply: FastifyReply, status: number, html: string, formTarget: string | null = null): Promise<FastifyReply> {
  const formAction = formTarget === null ? "'self'" : `'self' ${formTarget}`
  return await reply.code(status)
    .header('content-security-policy', `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on the form's POST, and the origin check needs it.
    .header('referrer-policy', 'same-origin')
    .type('text/html; charset=utf-8')
    .send(html)
}

/** A page that says one thing: what happened, and what to do. */
export function messagePage (title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style>${CONSENT_STYLE}</style></head>
<body><main><h1>${escape(title)}</h1><p role="status">${escape(message)}</p></main></body></html>`
}
