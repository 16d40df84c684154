// The search index normalizes tapped lines with no diff built (withoutDiffs):
// the searchable text of every entry must be what the full normalizer gives,
// over every recorded session of the JSONL kinds. (A diff the record carries
// written out, codex's, is kept: only the ones computed are skipped.)
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Glob } from 'bun'
import { NORMALIZERS, type FileKind } from '../../src/projects/heads'
import { searchText } from '../../src/search/text'
import type { Draft } from '../../src/transcript/entry'
import { withoutDiffs } from '../../src/transcript/tool-summary'

const FIXTURES = join(import.meta.dir, '..', '..', 'fixtures')
const hasDiff = (d: Draft) => d.tool?.diff !== undefined || d.result?.diff !== undefined

describe('normalizing for the search index', () => {
  for (const kind of Object.keys(NORMALIZERS) as FileKind[]) {
    test(`${kind}: the same searchable text with no diff computed, every entry of every fixture`, () => {
      const normalize = NORMALIZERS[kind]
      let entries = 0
      let diffs = 0
      let leanDiffs = 0
      for (const rel of new Glob('**/*.jsonl').scanSync(join(FIXTURES, kind))) {
        let offset = 0
        for (const line of readFileSync(join(FIXTURES, kind, rel), 'utf8').split('\n')) {
          const full = normalize(line, offset)
          const lean = withoutDiffs(() => normalize(line, offset))
          offset += Buffer.byteLength(line) + 1
          expect(lean.length).toBe(full.length)
          for (let i = 0; i < full.length; i++) {
            expect(searchText(lean[i]!)).toBe(searchText(full[i]!))
            if (hasDiff(full[i]!)) diffs++
            if (hasDiff(lean[i]!)) leanDiffs++
          }
          entries += full.length
        }
      }
      expect(entries).toBeGreaterThan(20)
      // the fixtures hold diffs the full normalizer computes, and the lean one skipped them
      expect(leanDiffs).toBeLessThan(diffs)
    })
  }

  test('diffs are built again once withoutDiffs returns, even when its work throws', () => {
    const line = JSON.stringify({
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'Edit', input: { file_path: '/a.ts', old_string: 'a\n', new_string: 'b\n' } }],
      },
    })
    expect(() =>
      withoutDiffs(() => {
        throw new Error('boom')
      }),
    ).toThrow('boom')
    expect(NORMALIZERS.claude(line, 0)[0]?.tool?.diff).toContain('+b')
  })
})
