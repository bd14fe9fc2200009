import { test } from 'tap'
import { CALIBRATION_FEATURE_NAMES } from '../../bees/sentiment-analyzer/model.js'
import { calibrate, fitCalibration, leaveOneSourceOut, type CalibrationCase, type SourceCases } from '../../eval/leave-one-source-out.js'

// A polar case: a positive score, right when the rating is positive; its features are [1, logit, 0, ...].
function polar (logit: number, right: boolean): CalibrationCase {
  const features = new Array<number>(CALIBRATION_FEATURE_NAMES.length).fill(0)
  features[0] = 1
  features[1] = logit
  return { rating: right ? 1 : -1, score: 0.5, features, share: 1 }
}
const neutral = (rating: number): CalibrationCase => ({ rating, score: 0, features: [], share: 1 })
const source = (name: string, cases: CalibrationCase[]): SourceCases => ({ source: name, cases })

test('every source weighs the same in the calibration, whatever its size', async t => {
  const big = source('big', Array.from({ length: 1000 }, () => polar(1, true)))
  const small = source('small', Array.from({ length: 50 }, () => polar(1, false)))
  const { weights } = fitCalibration([big, small], [0])
  const [prediction] = calibrate([polar(1, true)], { weights, neutralConfidence: 0 })
  t.ok(Math.abs(prediction!.confidence - 0.5) < 0.01, `one source always right, one never: ${prediction!.confidence}`)
  t.same(weights.slice(1), new Array(CALIBRATION_FEATURE_NAMES.length - 1).fill(0), 'features left out get no weight')
})

test('a neutral label gets the mean, over sources with neutral labels, of how often one is right', async t => {
  const calibration = fitCalibration([
    source('a', [polar(1, true), neutral(0), neutral(0), neutral(2), neutral(0)]),
    source('b', [polar(1, true), polar(1, false), neutral(-1)]),
    source('c', [polar(1, true), polar(2, true)])
  ], [0, 1])
  t.equal(calibration.neutralConfidence, (0.75 + 0) / 2)
})

test('leaving a source out: its own labels never reach the confidence it is scored with', async t => {
  const others = [
    source('x', Array.from({ length: 200 }, (_, i) => polar(i % 4, i % 5 !== 0))),
    source('y', Array.from({ length: 200 }, (_, i) => polar(i % 3, i % 3 !== 0)))
  ]
  const left = Array.from({ length: 100 }, (_, i) => polar(i % 4, true))
  const flipped = left.map(c => ({ ...c, rating: -c.rating }))
  const [asIs] = leaveOneSourceOut([source('z', left), ...others], [0, 1])
  const [asFlipped] = leaveOneSourceOut([source('z', flipped), ...others], [0, 1])
  t.same(asFlipped!.reliability.map(bin => bin.meanConfidence), asIs!.reliability.map(bin => bin.meanConfidence), 'same confidences')
  t.ok(asFlipped!.reliability.every(bin => bin.accuracy === 0), 'every label now wrong')
  t.ok(asFlipped!.calibrationError > asIs!.calibrationError, 'so the error grows')
})
