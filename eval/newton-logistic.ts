// Weighted logistic regression of a 0/1 outcome on a few dense features, by Newton's method: what Platt scaling
// fits. Deterministic, and converges in a few steps.

// Light ridge penalty: keeps the fit unique when a feature barely varies.
const L2 = 1e-3

export interface Observation { features: number[]; correct: number; weight: number }

export function fitLogistic (data: readonly Observation[], iterations = 50): number[] {
  const k = data[0]?.features.length ?? 0
  let beta = new Array<number>(k).fill(0)
  for (let iter = 0; iter < iterations; iter++) {
    const gradient = beta.map(b => -L2 * b)
    const hessian = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => (i === j ? L2 : 0)))
    for (const { features, correct, weight } of data) {
      const z = features.reduce((sum, x, i) => sum + x * beta[i]!, 0)
      const p = 1 / (1 + Math.exp(-z))
      for (let i = 0; i < k; i++) {
        gradient[i]! += weight * (correct - p) * features[i]!
        for (let j = 0; j < k; j++) hessian[i]![j]! += weight * p * (1 - p) * features[i]! * features[j]!
      }
    }
    const step = solve(hessian, gradient)
    beta = beta.map((b, i) => b + step[i]!)
    if (step.every(s => Math.abs(s) < 1e-10)) break
  }
  return beta
}

/** Gaussian elimination with partial pivoting for the small Newton systems. */
function solve (matrix: number[][], rhs: number[]): number[] {
  const n = rhs.length
  const a = matrix.map((row, i) => [...row, rhs[i]!])
  for (let col = 0; col < n; col++) {
    let pivot = col
    for (let row = col + 1; row < n; row++) if (Math.abs(a[row]![col]!) > Math.abs(a[pivot]![col]!)) pivot = row
    ;[a[col], a[pivot]] = [a[pivot]!, a[col]!]
    for (let row = col + 1; row < n; row++) {
      const factor = a[row]![col]! / a[col]![col]!
      for (let c = col; c <= n; c++) a[row]![c]! -= factor * a[col]![c]!
    }
  }
  const x = new Array<number>(n).fill(0)
  for (let row = n - 1; row >= 0; row--) {
    let sum = a[row]![n]!
    for (let c = row + 1; c < n; c++) sum -= a[row]![c]! * x[c]!
    x[row] = sum / a[row]![row]!
  }
  return x
}
