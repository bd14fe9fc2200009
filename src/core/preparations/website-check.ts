import { isIP } from 'node:net'

/** Why a website address is refused at once (the crawl checks every address it connects to again), or null. */
export function websiteProblem (websiteUrl: string, allowsAddress: (host: string) => boolean): string | null {
  if (!URL.canParse(websiteUrl)) return 'websiteUrl must be an absolute http or https URL'
  const url = new URL(websiteUrl)
  if (url.username !== '' || url.password !== '') return 'websiteUrl must not carry credentials'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) !== 0 && !allowsAddress(host)) return `websiteUrl's address ${host} is loopback, private or reserved: Apiary does not crawl it`
  return null
}
