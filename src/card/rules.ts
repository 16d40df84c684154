// Card rules as data: every rule that decides a card field has an id in one namespace,
// "<grammar>.<area>.<name>" (claude.dialog.question, pi.turn.last-prose, card.headline.title),
// the way herdr declares its agent detection as manifests of rules with ids. A grammar
// lists its rules (ScreenGrammar.rules) in the order it tries them; a reading names the
// rule behind each field it set (ScreenReading.decisions), GET /agent-state names them in
// X-Gothalo-Rule, and `gothalo explain` prints them with the evidence.
import type { ExplainedField, RuleInfo } from './card'

const rule = (id: string, field: RuleInfo['field'], says: string): RuleInfo => ({ id, field, says })

/** The turn policy every grammar shares (src/card/turn.ts), under the grammar's namespace. */
export function turnRules(ns: string): RuleInfo[] {
  return [
    rule(`${ns}.turn.last-prose`, 'headline', "the last line of the current turn's last prose block"),
    rule(`${ns}.turn.tool-title`, 'headline', "a working turn with only tool steps so far: herdr's task title"),
    rule(`${ns}.turn.tool-step`, 'headline', 'a finished turn with only tool steps: the last step'),
    rule(`${ns}.turn.nothing`, 'headline', 'the current turn has no prose and no tool step yet: no headline'),
  ]
}

/** What the card itself decides when the grammar gives it nothing (src/card/build.ts). */
export const cardRules: readonly RuleInfo[] = [
  rule('card.headline.title', 'headline', "the grammar found no headline: herdr's task title"),
  rule('card.headline.status', 'headline', 'no headline and no title: the status in words'),
  rule('card.detail.headline', 'detail', 'no detail: the headline again'),
  rule('card.blocked.no-dialog', 'blocked.question', 'herdr says blocked but no dialog was read: the headline, no options'),
  rule('card.no-screen', 'headline', 'the terminal could not be read: only what herdr said'),
  rule('card.grammar-threw', 'headline', 'the grammar failed on this screen: the fallback reading'),
  rule('card.build-threw', 'headline', 'building the card failed: only what herdr said'),
]

/** The fallback grammar's rules (kinds without a grammar, unrecognised screens). */
export const fallbackRules: readonly RuleInfo[] = [
  rule('fallback.last-readable-line', 'headline', 'the last readable row above footer chrome'),
  rule('fallback.nothing-readable', 'headline', 'nothing readable on screen'),
]

/** The field order X-Gothalo-Rule and explain use. */
export const EXPLAINED_FIELDS: readonly ExplainedField[] = [
  'headline',
  'detail',
  'blocked.question',
  'blocked.options',
  'blocked.options.description',
  'blocked.questions',
  'permission_mode',
]

/**
 * A grammar's rule table as its JSON file holds it ({id, field, says} each): the
 * rules are data beside the code that names them; manifest() checks them.
 */
export function ruleTable(rows: readonly { id: string; field: string; says: string }[]): RuleInfo[] {
  return rows.map(({ id, field, says }) => {
    if (!(EXPLAINED_FIELDS as readonly string[]).includes(field)) throw new Error(`rule ${id}: no card field ${field}`)
    return rule(id, field as ExplainedField, says)
  })
}

/** A grammar's rules file (<kind>-rules.json): its rules tried before the shared turn rules, and those tried after. */
export interface RulesFile {
  before_turn: readonly { id: string; field: string; says: string }[]
  after_turn: readonly { id: string; field: string; says: string }[]
}

/** Every rule a grammar can name, in the order it tries them: its own before the turn's, the turn's, its own after, the fallback's. */
export function grammarRules(ns: string, file: RulesFile): readonly RuleInfo[] {
  return manifest(ns, [...ruleTable(file.before_turn), ...turnRules(ns), ...ruleTable(file.after_turn), ...fallbackRules])
}

/** A grammar's manifest, checked once at load: ids unique and in the grammar's namespace. */
export function manifest(ns: string, rules: readonly RuleInfo[]): readonly RuleInfo[] {
  const seen = new Set<string>()
  for (const r of rules) {
    if (!/^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/.test(r.id)) throw new Error(`rule id ${r.id}: want <grammar>.<area>.<name>, lower-case`)
    if (r.id.split('.')[0] !== ns && r.id.split('.')[0] !== 'fallback') throw new Error(`rule id ${r.id} is outside the ${ns} namespace`)
    if (seen.has(r.id)) throw new Error(`rule id ${r.id} is listed twice`)
    seen.add(r.id)
  }
  return rules
}
