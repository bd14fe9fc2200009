import type { Graph, IdReference, Organization, Service, Thing, WebSite } from 'schema-dts'
import type { ReadPage } from '../crawl/read-page.js'
import type { PreparationInputs } from '../schemas.js'

type Node = Record<string, unknown>

/**
 * schema.org types that name the business itself: Organization, its common subtypes, and LocalBusiness
 * with the subtypes sites declare most. The site's own choice among them is kept.
 */
const BUSINESS_TYPES = new Set([
  'Organization', 'Corporation', 'NGO', 'OnlineBusiness', 'OnlineStore', 'EducationalOrganization', 'MedicalOrganization',
  'LocalBusiness', 'Store', 'ProfessionalService', 'FoodEstablishment', 'Restaurant', 'Bakery', 'CafeOrCoffeeShop', 'BarOrPub',
  'HealthAndBeautyBusiness', 'BeautySalon', 'HairSalon', 'DaySpa', 'HomeAndConstructionBusiness', 'Plumber', 'Electrician',
  'HVACBusiness', 'RoofingContractor', 'GeneralContractor', 'HousePainter', 'Locksmith', 'MovingCompany', 'AutomotiveBusiness',
  'AutoRepair', 'AutoDealer', 'LegalService', 'Attorney', 'Notary', 'FinancialService', 'AccountingService', 'InsuranceAgency',
  'MedicalBusiness', 'MedicalClinic', 'Dentist', 'Physician', 'Optician', 'Pharmacy', 'VeterinaryCare', 'LodgingBusiness', 'Hotel',
  'RealEstateAgent', 'TravelAgency', 'ChildCare', 'DryCleaningOrLaundry', 'EmploymentAgency', 'EntertainmentBusiness',
  'SportsActivityLocation', 'HealthClub', 'SelfStorage', 'ShoppingCenter', 'TouristInformationCenter'
])

const SCHEMA_ORG_CONTEXT = /^https?:\/\/schema\.org\/?$/

const typesOf = (node: Node): string[] => {
  const type = node['@type']
  return (Array.isArray(type) ? type : [type]).filter((entry): entry is string => typeof entry === 'string')
}
const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value)
const slug = (text: string) => text.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'service'

/** A relative @id is relative to the page it was found on, not to wherever the merged document is served. */
function withAbsoluteId (node: Node, pageUrl: string): Node {
  const id = node['@id']
  return typeof id === 'string' && URL.canParse(id, pageUrl) ? { ...node, '@id': new URL(id, pageUrl).href } : node
}

/** The nodes of the site's JSON-LD blocks whose context is schema.org, and a note for each block left out. */
function siteNodes (pages: readonly ReadPage[]): { nodes: Node[], notes: string[] } {
  const nodes: Node[] = []
  const notes: string[] = []
  for (const page of pages) {
    for (const block of page.jsonLd) {
      for (const item of Array.isArray(block) ? block : [block]) {
        if (!isObject(item)) continue
        const context = item['@context']
        if (typeof context !== 'string' || !SCHEMA_ORG_CONTEXT.test(context)) {
          notes.push(`${page.url}: a JSON-LD block with a context other than schema.org, left out of the merge`)
          continue
        }
        const { '@context': _context, '@graph': graph, ...own } = item
        const found = [...(Array.isArray(graph) ? graph.filter(isObject) : []), ...(Object.keys(own).length > 0 ? [own] : [])]
        nodes.push(...found.map((node) => withAbsoluteId(node, page.url)))
      }
    }
  }
  return { nodes, notes }
}

/** The first node whose types match, with the same id's later declarations (other pages) merged under it. */
function pick (nodes: Node[], matches: (node: Node) => boolean): Node | undefined {
  const first = nodes.find(matches)
  if (first === undefined) return undefined
  const id = first['@id']
  const same = nodes.filter((node) => node === first || (id !== undefined && node['@id'] === id) || (id === undefined && matches(node)))
  return Object.assign({}, ...same.reverse()) as Node
}

export interface JsonLdDocument { text: string, notes: string[] }

/**
 * The site's schema.org graph: the business (Organization, or the LocalBusiness type the site declares),
 * its WebSite and one Service per primary service, linked by @id. What the site's own JSON-LD says is kept:
 * its values win over the submitted ones, and its other nodes (products, FAQs…) stay in the graph.
 */
export function jsonLd (inputs: PreparationInputs, pages: readonly ReadPage[]): JsonLdDocument {
  const home = new URL(pages[0]?.url ?? inputs.websiteUrl)
  const origin = home.origin
  const { nodes, notes } = siteNodes(pages)
  const siteBusiness = pick(nodes, (node) => typesOf(node).some((type) => BUSINESS_TYPES.has(type)))
  const siteWebSite = pick(nodes, (node) => typesOf(node).includes('WebSite'))
  const businessId = typeof siteBusiness?.['@id'] === 'string' ? siteBusiness['@id'] : `${origin}/#organization`
  const ref: IdReference = { '@id': businessId }

  const emails = pages.flatMap((page) => page.found.emails)
  const phones = pages.flatMap((page) => page.found.phones)
  const business = {
    '@type': 'Organization',
    name: inputs.businessName,
    description: inputs.description,
    url: home.href,
    ...(emails[0] === undefined ? {} : { email: emails[0] }),
    ...(phones[0] === undefined ? {} : { telephone: phones[0] }),
    ...siteBusiness,
    '@id': businessId
  } as Organization & Node

  const webSite: WebSite & Node = {
    '@type': 'WebSite',
    url: home.href,
    name: inputs.businessName,
    publisher: ref,
    ...siteWebSite,
    '@id': typeof siteWebSite?.['@id'] === 'string' ? siteWebSite['@id'] : `${origin}/#website`
  }

  const siteServices = nodes.filter((node) => typesOf(node).includes('Service'))
  const matched = new Set<Node>()
  const services = inputs.primaryServices.map((name): Service & Node => {
    const declared = siteServices.find((node) => typeof node.name === 'string' && node.name.toLowerCase() === name.toLowerCase())
    if (declared !== undefined) matched.add(declared)
    return {
      '@type': 'Service',
      name,
      serviceType: name,
      provider: ref,
      ...(inputs.targetAudience.trim() === '' ? {} : { audience: { '@type': 'Audience', audienceType: inputs.targetAudience } }),
      ...declared,
      '@id': typeof declared?.['@id'] === 'string' ? declared['@id'] : `${origin}/#service-${slug(name)}`
    }
  })

  // Every business and WebSite declaration was merged above, as was each service matched by name.
  const mergedIds = new Set([businessId, webSite['@id'], ...services.map((service) => service['@id'])])
  const others = nodes.filter((node) => !matched.has(node) && !mergedIds.has(node['@id'] as string) &&
    !typesOf(node).some((type) => BUSINESS_TYPES.has(type) || type === 'WebSite'))
  const graph: Graph = { '@context': 'https://schema.org', '@graph': [business, webSite, ...services, ...others] as Thing[] }
  if (siteBusiness !== undefined) notes.push(`the site's own ${typesOf(siteBusiness).join('/')} declaration kept and merged`)
  return { text: JSON.stringify(graph, null, 2), notes }
}
