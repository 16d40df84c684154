// Registering pi and opencode must not change a Claude card: every Claude corpus screen
// through the registry still gives expected.json's headline, blocked and permission mode.
import { expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentStatus } from '../../src/herdr/types'
import { buildCard } from '../../src/card/build'
import { grammarFor } from '../../src/card/registry'
import { claudeGrammar } from '../../src/card/grammars/claude'
import { agentOf } from './agent'
import { onCard } from '../support/blocked'

const ROOT = join(import.meta.dir, '../../fixtures/screens')
// captured a moment after the .txt; expected.json describes the .txt (as in test/card)
const laterFrame: Record<string, string> = {
  'cc-long/02-turn2-working.ansi': 'Turn 2, step 1: listing generated rows.',
  'cc-long/02-turn2-working.recent.txt': 'Turn 2, step 1: listing generated rows.',
}

test('every Claude corpus screen reads as before', () => {
  expect(grammarFor('claude')).toBe(claudeGrammar)
  let n = 0
  for (const scenario of readdirSync(ROOT).filter((d) => d.startsWith('cc-'))) {
    const expected = JSON.parse(readFileSync(join(ROOT, scenario, 'expected.json'), 'utf8'))
    for (const [label, want] of Object.entries<any>(expected.screens)) {
      for (const variant of ['.txt', '.ansi', '.recent.txt']) {
        const file = join(ROOT, scenario, label + variant)
        if (!existsSync(file)) continue
        const card = buildCard(agentOf('claude', want.agent_status as AgentStatus), readFileSync(file, 'utf8'))
        const where = `${scenario}/${label}${variant}`
        expect([where, card.parsed]).toEqual([where, true])
        expect([where, card.headline]).toEqual([where, laterFrame[where] ?? want.headline ?? 'Task title from herdr'])
        expect([where, card.permission_mode]).toEqual([where, want.permission_mode ?? undefined])
        expect([where, card.blocked]).toEqual([where, onCard('claude', want.blocked)])
        n++
      }
    }
  }
  expect(n).toBeGreaterThan(100)
})
