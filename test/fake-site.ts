import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeSite {
  url: string
  /** Every request: its path and User-Agent. */
  requests: Array<{ path: string, userAgent: string }>
  close (): Promise<void>
}

const page = (title: string, description: string, body: string, head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="description" content="${description}">${head}</head>
<body><nav><a href="/">Home</a> <a href="/services">Services</a> <a href="/about">About</a></nav>
<main>${body}</main><footer><a href="mailto:hello@crumb.test">hello@crumb.test</a> <a href="tel:+15550100">+1 555 0100</a></footer></body></html>`

const bakeryJsonLd = JSON.stringify({
  '@context': 'https://schema.org',
  '@type': 'Bakery',
  '@id': '/#bakery',
  name: 'Crumb & Co',
  telephone: '+1 555 0100',
  address: { '@type': 'PostalAddress', streetAddress: '1 Flour Lane', addressLocality: 'Springfield' },
  openingHours: 'Mo-Sa 07:00-18:00'
})

const servicesJsonLd = JSON.stringify({
  '@context': 'https://schema.org',
  '@graph': [
    { '@type': 'Service', name: 'Wedding cakes', description: 'Tiered cakes made to order.' },
    { '@type': 'FAQPage', '@id': '/services#faq', name: 'Cake questions' }
  ]
})

const paragraph = (topic: string) => `<p>${topic} Our bakers start before dawn and use flour milled in the valley. ` +
  'Every loaf is shaped by hand and baked in a stone oven. Customers order ahead online or drop by the shop on Flour Lane. ' +
  'We deliver within the city every morning except Sunday.</p>'

/**
 * A small business's website on 127.0.0.1 for the preparation tests: a home page, services, about and a
 * deeper page, its own JSON-LD, a robots.txt that disallows /private, a sitemap; and hostile pages: a
 * redirect loop, a 50 MB page, a slow page, a PDF, and links to a private address and to another site.
 * `pageDelayMs` holds every HTML page back that long, so a test can act while a crawl is under way.
 */
export async function startFakeSite (options: { pageDelayMs?: number } = {}): Promise<FakeSite> {
  const open = new Set<ServerResponse>()
  const html = (response: ServerResponse, body: string) => {
    setTimeout(() => {
      if (response.destroyed) return
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(body)
    }, options.pageDelayMs ?? 0)
  }
  const server = createServer((request, response) => {
    const path = request.url ?? '/'
    site.requests.push({ path, userAgent: String(request.headers['user-agent']) })
    switch (path) {
      case '/robots.txt':
        response.writeHead(200, { 'content-type': 'text/plain' })
        return response.end(`User-agent: *\nDisallow: /private\n\nSitemap: ${site.url}/sitemap.xml\n`)
      case '/sitemap.xml':
        response.writeHead(200, { 'content-type': 'application/xml' })
        return response.end(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${['/', '/services', '/about', '/services/wedding-cakes', '/slow', '/huge'].map((p) => `<url><loc>${site.url}${p}</loc></url>`).join('\n')}
</urlset>`)
      case '/':
        return html(response, page('Crumb & Co — Springfield bakery', 'Sourdough, pastries and cakes baked daily in Springfield.',
          `<h1>Crumb &amp; Co</h1>${paragraph('Crumb & Co is a neighbourhood bakery in Springfield.')}
<a href="/services">Our services</a> <a href="/about">About us</a> <a href="/private/admin">Staff</a>
<a href="/loop">Old menu</a> <a href="/brochure">Brochure</a> <a href="http://10.0.0.1/admin">Router</a>
<a href="https://example.org/partner">Partner</a>
<h2>Order a cake</h2><form action="/order" method="post"><input name="name" required><input name="email" type="email" required>
<textarea name="message"></textarea><input type="hidden" name="token" value="x"><button type="submit">Send</button></form>`,
          `<script type="application/ld+json">${bakeryJsonLd}</script>
<link rel="search" type="application/opensearchdescription+xml" href="/opensearch.xml" title="Crumb search">
<link rel="service-desc" href="/openapi.json">`))
      case '/services':
        return html(response, page('Services', 'Bread subscriptions, wedding cakes and catering.',
          `<h1>Services</h1>${paragraph('We offer bread subscriptions, wedding cakes and catering for events.')}
<a href="/services/wedding-cakes">Wedding cakes</a>`, `<script type="application/ld+json">${servicesJsonLd}</script>`))
      case '/services/wedding-cakes':
        return html(response, page('Wedding cakes', 'Tiered wedding cakes made to order.', `<h1>Wedding cakes</h1>${paragraph('Wedding cakes are our speciality.')}`))
      case '/about':
        return html(response, page('About', 'A family bakery since 1998.', `<h1>About</h1>${paragraph('The Miller family opened Crumb & Co in 1998.')}`))
      case '/loop':
        response.writeHead(302, { location: '/loop-again' })
        return response.end()
      case '/loop-again':
        response.writeHead(302, { location: '/loop' })
        return response.end()
      case '/brochure':
        response.writeHead(200, { 'content-type': 'application/pdf' })
        return response.end('%PDF-1.4 not really')
      case '/huge': {
        // 50 MB of HTML, written as the client reads it; the crawler is expected to hang up long before the end.
        response.writeHead(200, { 'content-type': 'text/html' })
        const chunk = Buffer.alloc(64 * 1024, 'a')
        let left = 50 * 1024 * 1024
        const pump = () => {
          while (left > 0 && !response.destroyed) {
            left -= chunk.length
            if (!response.write(chunk)) return response.once('drain', pump)
          }
          response.end()
        }
        return pump()
      }
      case '/slow':
        open.add(response)
        return
      default:
        response.writeHead(404, { 'content-type': 'text/plain' })
        return response.end('not found')
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const site: FakeSite = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: [],
    async close () {
      for (const response of open) response.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    }
  }
  return site
}
