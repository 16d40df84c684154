// The usage folds count through the kinds' tapped counters: they must count
// exactly what the plain counters count (an index built with a fold must equal
// one built without), on every real line, every bad input and mutated lines,
// and hand over every record that states usage.
import { expect, test } from 'bun:test'
import { countCodexLine, countCodexLineTapped } from '../../src/transcript/kinds/codex/normalize'
import { countPiLine, countPiLineTapped } from '../../src/transcript/kinds/pi/normalize'
import { linesOf } from '../support/fuzz'
import * as codex from '../transcript/kinds/codex/fuzz'
import * as pi from '../transcript/kinds/pi/fuzz'

const cases = [
  {
    kind: 'pi',
    plain: countPiLine,
    tapped: countPiLineTapped,
    k: pi,
    files: pi.piCorpusFiles(),
    states: (r: any) => r.type === 'message' && r.message?.usage !== undefined,
  },
  {
    kind: 'codex',
    plain: countCodexLine,
    tapped: countCodexLineTapped,
    k: codex,
    files: codex.codexCorpusFiles(),
    states: (r: any) => r.type === 'turn_context' || (r.type === 'event_msg' && ['token_count', 'task_started'].includes(r.payload?.type)),
  },
]

const parsed = (line: string): any => {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

for (const c of cases) {
  test(`${c.kind}: the tapped counter counts like the plain one and hands over every usage record`, () => {
    const lines = [...c.files.flatMap((f) => linesOf(f).map((l) => l.line)), ...c.k.BAD_LINES, ...c.k.SHAPE_SEEDS, ...c.k.fuzzLines(3000, 77)]
    const wrong: string[] = []
    let handed = 0
    let stating = 0
    for (const line of lines) {
      let got = false
      const n = c.tapped(line, () => {
        got = true
      })
      if (n !== c.plain(line, 0)) wrong.push(line.slice(0, 200))
      const rec = parsed(line)
      if (rec && typeof rec === 'object' && c.states(rec)) {
        stating++
        if (got) handed++
        else wrong.push(`not handed: ${line.slice(0, 200)}`)
      }
    }
    expect(wrong).toEqual([])
    expect(stating).toBeGreaterThan(5)
    expect(handed).toBe(stating)
  })
}
