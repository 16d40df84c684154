// Compare a fresh recording with the committed fixtures: every screen of every scenario in
// RUN_ROOT (a capture.sh OUT_ROOT) is read into a card with the status expected.json gives
// its label in fixtures/screens, and the card's headline, permission_mode and blocked are
// checked against that expected.json. This is "a live run of the real binary agrees with
// the fixtures": run by check-live.sh, or by hand:
//   bun scripts/capture/compare.ts RUN_ROOT [NAME…]
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { blockedOf, buildCard } from '../../src/card/build'
import type { AgentInfo, AgentStatus } from '../../src/herdr/types'
import { grammarFor } from '../../src/card/registry'

const [runRoot, ...only] = process.argv.slice(2)
if (!runRoot) {
  console.error('usage: bun scripts/capture/compare.ts RUN_ROOT [NAME…]')
  process.exit(2)
}
const FIXTURES = join(import.meta.dir, '../../fixtures/screens')
const TITLE = '(title)'
let screens = 0
const wrong: string[] = []
for (const dir of readdirSync(runRoot).sort()) {
  if (only.length && !only.some((n) => dir.endsWith('-' + n))) continue
  const expFile = join(FIXTURES, dir, 'expected.json')
  if (!existsSync(expFile)) {
    console.log(`${dir}: no fixture to compare with (new scenario?)`)
    continue
  }
  const expected = JSON.parse(readFileSync(expFile, 'utf8'))
  for (const [label, want] of Object.entries<any>(expected.screens)) {
    // read the screen as the bridge does: with its colours when the grammar wants them
    const ansi = join(runRoot, dir, `${label}.ansi`)
    const file = grammarFor(expected.agent).wantsAnsi === true && existsSync(ansi) ? ansi : join(runRoot, dir, `${label}.txt`)
    if (!existsSync(file)) {
      wrong.push(`${dir}/${label}: not recorded in this run`)
      continue
    }
    screens++
    const agent = {
      agent: expected.agent,
      agent_status: want.agent_status as AgentStatus,
      pane_id: 'live',
      terminal_title_stripped: TITLE,
    } as AgentInfo
    const card = buildCard(agent, readFileSync(file, 'utf8'))
    const diffs: string[] = []
    const headline = want.headline ?? TITLE
    if (card.headline !== headline) diffs.push(`headline ${JSON.stringify(card.headline)} ≠ ${JSON.stringify(headline)}`)
    if ((card.permission_mode ?? null) !== want.permission_mode) diffs.push(`mode ${card.permission_mode} ≠ ${want.permission_mode}`)
    // the card adds multi_select (compared) and the fingerprint (not: it also hashes the
    // dialog's context rows, which expected.json does not name)
    const blocked = want.blocked ? { ...blockedOf(expected.agent, want.blocked), fingerprint: undefined } : undefined
    const got = card.blocked ? { ...card.blocked, fingerprint: undefined } : undefined
    if (JSON.stringify(got ?? null) !== JSON.stringify(blocked ?? null)) {
      diffs.push(`blocked ${JSON.stringify(got)} ≠ ${JSON.stringify(blocked)}`)
    }
    if (diffs.length) wrong.push(`${dir}/${label}: ${diffs.join('; ')}`)
  }
}
for (const w of wrong) console.log('DIFFERS ' + w)
console.log(`${screens - wrong.filter((w) => !w.endsWith('not recorded in this run')).length}/${screens} live screens agree with the fixtures' expected cards`)
process.exit(wrong.length ? 1 : 0)
