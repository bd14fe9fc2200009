// Does a text read like social media? Emoticons, hashtags, mentions, "lol",
// "!!", stretched words ("sooo"): VADER was built for this register, so the
// model trusts the lexicons more here (see model.ts).

// Every cue but the stretched word. Case-insensitive, as ":OD" and "LOL" count.
const MARKED_CUES = /[@#]\w|<3|[!?]{2}|(?:^|\s)[:;=8xX][-o']?[()[\]dDpP3/\\|*]|\b(?:lol|lmao|haha\w*|omg|wtf|ugh|yay|woo+)\b/i

export function hasSocialCues (text: string): boolean {
  return MARKED_CUES.test(text) || hasStretchedWord(text)
}

/**
 * Three ASCII word characters in a row that are the same letter in either
 * case, or the same digit or "_": what /(\w)\1\1/i matches. That regex tries a
 * case-insensitive back-reference at every position: 7 µs of the ~110 µs a
 * movie-review sentence took, as much as all its word features. This scan
 * does the same in well under one.
 */
export function hasStretchedWord (text: string): boolean {
  let previous = -1
  let run = 0
  for (let i = 0; i < text.length; i++) {
    const code = foldedWordCode(text.charCodeAt(i))
    run = code !== -1 && code === previous ? run + 1 : 1
    if (run === 3) return true
    previous = code
  }
  return false
}

/** An ASCII word character, with upper-case letters folded to lower case; -1 for anything else. */
function foldedWordCode (code: number): number {
  if (code >= 97 && code <= 122) return code // a-z
  if (code >= 65 && code <= 90) return code + 32 // A-Z
  if ((code >= 48 && code <= 57) || code === 95) return code // 0-9 _
  return -1
}
