// A reliability diagram as a small hand-written SVG: one bar per confidence bin, as high as the share of its
// predictions that were right, the diagonal that perfect calibration would follow, a dot at each bin's mean
// confidence and its count above the bar.
import type { ReliabilityBin } from './sentiment-metrics.js'

const SIZE = 400
const LEFT = 50
const TOP = 40
const PLOT = 320

const x = (value: number): number => LEFT + value * PLOT
const y = (value: number): number => TOP + (1 - value) * PLOT
const fixed = (value: number): string => String(Math.round(value * 10) / 10)

function escapeXml (text: string): string {
  return text.replace(/[<>&"']/g, c => `&#${c.charCodeAt(0)};`)
}

export function reliabilitySvg (title: string, bins: readonly ReliabilityBin[]): string {
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}" width="${SIZE}" height="${SIZE}" font-family="sans-serif" font-size="11">`,
    `<rect width="${SIZE}" height="${SIZE}" fill="white"/>`,
    `<text x="${SIZE / 2}" y="22" text-anchor="middle" font-size="14">${escapeXml(title)}</text>`,
    `<rect x="${LEFT}" y="${TOP}" width="${PLOT}" height="${PLOT}" fill="none" stroke="#888"/>`
  ]
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<text x="${fixed(x(tick))}" y="${TOP + PLOT + 15}" text-anchor="middle">${tick}</text>`,
      `<text x="${LEFT - 6}" y="${fixed(y(tick) + 4)}" text-anchor="end">${tick}</text>`)
  }
  parts.push(`<text x="${LEFT + PLOT / 2}" y="${SIZE - 8}" text-anchor="middle">confidence</text>`,
    `<text transform="translate(14 ${TOP + PLOT / 2}) rotate(-90)" text-anchor="middle">share right</text>`)
  for (const bin of bins) {
    if (bin.count === 0) continue
    const left = x(bin.low) + 1
    const width = x(bin.high) - x(bin.low) - 2
    parts.push(`<rect class="bin" x="${fixed(left)}" y="${fixed(y(bin.accuracy))}" width="${fixed(width)}" height="${fixed(y(0) - y(bin.accuracy))}" fill="#4a7fb5" fill-opacity="0.6"/>`,
      `<circle cx="${fixed(x(bin.meanConfidence))}" cy="${fixed(y(bin.accuracy))}" r="3" fill="#1f3f66"/>`,
      `<text x="${fixed(left + width / 2)}" y="${fixed(y(bin.accuracy) - 5)}" text-anchor="middle" font-size="9">${bin.count}</text>`)
  }
  parts.push(`<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#d33" stroke-dasharray="5 4"/>`, '</svg>')
  return parts.join('\n') + '\n'
}
