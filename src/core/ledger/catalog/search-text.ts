import type { SearchText } from './catalog-repository.js'

export const textOf = (bee: SearchText): SearchText =>
  ({ id: bee.id, name: bee.name, category: bee.category, colony: bee.colony, description: bee.description })

export const wordsOf = (query: string) => query.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0)
