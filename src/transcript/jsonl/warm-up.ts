// Runs a kind's sample lines through everything a first connect runs over a
// JSONL transcript (the index pass's count and fold, the page's normalize,
// the frame's JSON) so the JIT has compiled that code before a phone needs
// it: a fresh bridge otherwise pays it inside the first page it serves.
// Pure: the output is thrown away.
import { placed } from '../entry'
import { LineIndex, indexLines, normalizeBytes } from './line-index'
import type { LineCounter, LineFold, LineNormalizer } from './normalizer'

export interface WarmUpGrammar {
  normalize: LineNormalizer
  count?: LineCounter
  fold?: LineFold
}

/**
 * A kind's warm-up round (TranscriptSource.warmUp): indexes, normalizes and
 * serializes `lines` once a call; answers what it indexed and read (for tests).
 */
export function jsonlWarmUp(lines: readonly string[], grammar: WarmUpGrammar): () => { indexed: number; read: number } {
  const buf = Buffer.from(lines.map((l) => `${l}\n`).join(''))
  // each line's bytes in buf, as a page read finds them
  const spans: [number, number][] = []
  for (let at = 0, nl = buf.indexOf(10); nl !== -1; at = nl + 1, nl = buf.indexOf(10, at)) spans.push([at, nl])
  return () => {
    const index = new LineIndex()
    index.facts = grammar.fold?.fresh()
    indexLines(buf, 0, grammar.normalize, index, undefined, grammar.count, grammar.fold)
    let read = 0
    for (const [from, to] of spans) {
      const drafts = normalizeBytes(grammar.normalize, buf, from, to, 0)
      JSON.stringify(drafts.map((d, i) => placed(d, i + 1)))
      read += drafts.length
    }
    return { indexed: index.total(), read }
  }
}
