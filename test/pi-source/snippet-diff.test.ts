// previewDiff's direct path must be byte-identical to jsdiff alone on every
// input: checked on hand-picked edge cases and on many random edits.
import { describe, expect, test } from 'bun:test'
import { jsdiffPreview, previewDiff } from '../../src/transcript/tool-summary'

const cases: [string, string][] = [
  ['', 'a'],
  ['', 'a\n'],
  ['', '# Notes\n\nStatus: draft\n\n- item one\n- item two'],
  ['a', ''],
  ['a\n', ''],
  ['a', 'a\n'],
  ['a\n', 'a'],
  ['a', 'a\nb'],
  ['a\nb', 'a'],
  ['x\nb', 'b\nx'],
  ['Status: draft', 'Status: final'],
  ['1\n2\n3\n4\n5\n6\n7\n8\n9', '1\n2\n3\n4\nFIVE\n6\n7\n8\n9'],
  ['1\n2\n3\n4\n5\n6\n7\n8\n9\n', '1\n2\n3\n4\n6\n7\n8\n9\n'],
  ['a\nb\nc', 'a\nc\nb'],
  ['a\r\nb', 'a\r\nc'],
  ['same\nsame\nsame', 'same\nother\nsame'],
  ['\n\n\n', '\n\n'],
  ['é\n😀\nz', 'é\n😁\nz'],
]

describe('previewDiff equals jsdiff', () => {
  test.each(cases)('%j → %j', (a, b) => {
    expect(previewDiff(a, b)).toBe(jsdiffPreview(a, b))
  })

  test('random edits over a small alphabet (many shared lines) and a large one', () => {
    let seed = 42
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n)
    for (let i = 0; i < 3000; i++) {
      const alphabet = i % 2 ? 4 : 1000
      const lines = Array.from({ length: rnd(12) }, () => `l${rnd(alphabet)}`)
      const edited = [...lines]
      for (let k = rnd(4); k > 0; k--) {
        const at = rnd(edited.length + 1)
        const op = rnd(3)
        if (op === 0) edited.splice(at, 0, `n${rnd(alphabet)}`)
        else if (op === 1) edited.splice(at, 1)
        else edited[at] = `m${rnd(alphabet)}`
      }
      const a = lines.join('\n') + (rnd(2) ? '\n' : '')
      const b = edited.filter((x) => x !== undefined).join('\n') + (rnd(2) ? '\n' : '')
      expect([a, b, previewDiff(a, b)]).toEqual([a, b, jsdiffPreview(a, b)])
    }
  })
})
