// One screen grammar per agent kind (herdr's agent label). Adding a kind is one entry here.
import type { ScreenGrammar } from './card'
import { claudeGrammar } from './grammars/claude'
import { codexGrammar } from './grammars/codex'
import { fallbackGrammar } from './grammars/fallback'
import { opencodeGrammar } from './grammars/opencode'
import { piGrammar } from './grammars/pi'

const grammars: readonly ScreenGrammar[] = [claudeGrammar, piGrammar, opencodeGrammar, codexGrammar]

const byKind = new Map<string, ScreenGrammar>()
for (const g of grammars) for (const k of g.kinds) byKind.set(k.toLowerCase(), g)

/** The grammar for a herdr agent kind; the fallback (parsed:false) for any other. */
export function grammarFor(kind: string | undefined): ScreenGrammar {
  if (typeof kind !== 'string') return fallbackGrammar
  return byKind.get(kind.trim().toLowerCase()) ?? fallbackGrammar
}

/** True when the kind has a dedicated grammar. */
export function hasGrammar(kind: string | undefined): boolean {
  return grammarFor(kind) !== fallbackGrammar
}

export { fallbackGrammar }
