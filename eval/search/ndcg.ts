// nDCG@k with graded relevance (Järvelin and Kekäläinen; the exponential gain 2^grade - 1 of most IR evaluations).

const gain = (grade: number) => 2 ** grade - 1
const discountedSum = (grades: readonly number[]) => grades.reduce((sum, grade, rank) => sum + gain(grade) / Math.log2(rank + 2), 0)

/** nDCG@k of a ranking (Bee ids, best first) against graded labels; 1 is the ideal order, 0 nothing relevant in the top k. */
export function ndcgAt (k: number, ranking: readonly string[], relevant: Readonly<Record<string, number>>): number {
  const ideal = discountedSum(Object.values(relevant).sort((a, b) => b - a).slice(0, k))
  if (ideal === 0) return 0
  return discountedSum(ranking.slice(0, k).map((id) => relevant[id] ?? 0)) / ideal
}

export const mean = (values: readonly number[]) => values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length
