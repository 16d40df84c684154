// Claude Code screen grammar: screen text → card fields. Pure.
// Layout (docs/reference/claude-code.md §8): conversation, then either the composer
// (rule / ❯ / rule / footer) or a live dialog that replaces it. The wording it keys on
// lives in claude-vocabulary.ts.
import type { AgentInfo } from '../../herdr/types'
import type { DialogReading, ScreenGrammar, ScreenReading } from '../card'
import { screenLines } from '../clean'
import { readDialog, type DialogRead } from '../dialog'
import { indentOf, isBoxArt, isDashedRule, isRule, paneWidth, wrapsInto } from '../lines'
import { claudeVocabulary as V, type ClaudeVocabulary } from './claude-vocabulary'
import { fallbackRead } from './fallback'
import { readTurn } from '../turn'

const TRANSCRIPT_LINES = 12

interface Composer {
  /** row of the rule above the ❯ row */
  top: number
  /** row of the rule under the draft */
  bottom: number
}

/** The screen cut into its regions. */
export interface ClaudeLayout {
  lines: string[]
  width: number
  composer?: Composer
  dialog?: DialogRead
  /** the conversation is lines[0, convEnd) */
  convEnd: number
  /** the last rule's row when neither composer nor dialog is on screen (transcript view) */
  lastRule: number
}

type BlockKind = 'prose' | 'tool' | 'info' | 'status' | 'prompt' | 'other'
interface Block {
  kind: BlockKind
  rows: string[]
}

const anyMatch = (res: readonly RegExp[], s: string) => res.some((r) => r.test(s))
// rows that end the live region: a bullet or an echoed prompt at column 0
const LIVE_BREAKER = /^[●⏺❯]\s/
// gutter and tree glyphs in front of tool results and agent trees
const TREE = /^[\s├└│┃⎿]+/

function findComposer(lines: readonly string[], v: ClaudeVocabulary): Composer | undefined {
  // the LAST rule / ❯ / … / rule group; footer rows may follow it
  for (let top = lines.length - 2; top >= 0; top--) {
    if (!isRule(lines[top]) || !v.promptLine.test(lines[top + 1])) continue
    for (let b = top + 2; b < lines.length && b <= top + 12; b++) {
      if (isRule(lines[b])) return { top, bottom: b }
    }
  }
  return undefined
}

export function layoutOf(screen: string, v: ClaudeVocabulary = V): ClaudeLayout {
  const lines = screenLines(screen)
  const width = paneWidth(lines)
  const composer = findComposer(lines, v)
  const from = composer ? composer.bottom + 1 : 0
  const dialog = readDialog(lines, from, width, v.dialog, LIVE_BREAKER)
  let lastRule = -1
  for (let i = lines.length - 1; i >= 0; i--) {
    if (isRule(lines[i])) {
      lastRule = i
      break
    }
  }
  let convEnd = lines.length
  if (composer) convEnd = composer.top
  else if (dialog) convEnd = dialog.top
  else if (lastRule >= 0 && lines.length - lastRule <= 4) convEnd = lastRule // transcript view footer
  return { lines, width, composer, dialog, convEnd, lastRule }
}

/** The permission mode from the footer rows under the composer. */
export function modeOf(layout: ClaudeLayout, v: ClaudeVocabulary = V): string | undefined {
  const { lines, composer } = layout
  if (!composer) return undefined // a dialog or the transcript view hides the footer
  const end = Math.min(lines.length, composer.bottom + 8)
  let footer = false
  for (let i = composer.bottom + 1; i < end; i++) {
    const l = lines[i]
    if (!l.trim()) continue
    footer = true
    const m = v.modeRow.exec(l)
    if (!m) continue
    const label = m[1].trim()
    for (const known of v.modes) if (known.label.test(label)) return known.mode
    return label.toLowerCase()
  }
  return footer ? v.defaultMode : undefined
}

function isToolCall(text: string, v: ClaudeVocabulary): boolean {
  return anyMatch(v.toolCall, text)
}

/** Cut the conversation rows into blocks: prose, tool rows, notices, status rows, prompts. */
export function blocksOf(layout: ClaudeLayout, v: ClaudeVocabulary = V, start = 0): Block[] {
  const { lines, convEnd } = layout
  const blocks: Block[] = []
  let cur: Block | undefined
  let blankBefore = false
  const open = (kind: BlockKind, row: string) => {
    cur = { kind, rows: [row] }
    blocks.push(cur)
  }
  for (let i = start; i < convEnd; i++) {
    const l = lines[i]
    if (!l.trim()) {
      blankBefore = true
      continue
    }
    const wasBlank = blankBefore
    blankBefore = false
    if (v.banner.test(l) || isRule(l) || isDashedRule(l) || isBoxArt(l) || anyMatch(v.chrome, l)) {
      if (cur && cur.kind === 'prose' && isDashedRule(l)) continue
      if (v.banner.test(l) || isRule(l)) cur = undefined
      continue
    }
    if (v.bullet.test(l)) {
      const text = l.replace(v.bullet, '')
      let kind: BlockKind = 'prose'
      if (isToolCall(text, v)) kind = 'tool'
      else if (anyMatch(v.infoRow, text)) kind = 'info'
      // prose never has a result gutter right under it; a notice or tool row does
      else if (i + 1 < convEnd && v.resultGutter.test(lines[i + 1])) kind = 'info'
      open(kind, text)
      continue
    }
    if (v.promptLine.test(l)) {
      open('prompt', l.replace(v.promptLine, ''))
      continue
    }
    if (v.spinner.test(l) || v.statusRow.test(l)) {
      open('status', l)
      continue
    }
    if (v.resultGutter.test(l)) {
      if (cur && cur.kind !== 'prose' && cur.kind !== 'prompt') cur.rows.push(l)
      else open('tool', l)
      continue
    }
    const indent = indentOf(l)
    const text = l.trim()
    if (indent > 0 && indent <= 4 && (isToolCall(text, v) || anyMatch(v.toolRow, text))) {
      open('tool', text)
      continue
    }
    if (indent > 0 && cur) {
      if (cur.kind === 'prose') {
        if (wasBlank) cur.rows.push('')
        cur.rows.push(l)
        continue
      }
      if (cur.kind === 'prompt' && wasBlank) {
        open('other', l)
        continue
      }
      if (!wasBlank || indent > 2 || cur.kind === 'prompt') {
        cur.rows.push(l)
        continue
      }
    }
    open('other', l)
  }
  return blocks
}

/** The prose block's logical lines: bullet and indent removed, soft wraps joined. */
function proseLines(rows: readonly string[], width: number): string[] {
  const out: string[] = []
  let prevRaw = ''
  for (let k = 0; k < rows.length; k++) {
    const raw = k === 0 ? '● ' + rows[0] : rows[k]
    const text = k === 0 ? rows[0].trim() : rows[k].replace(/^ {1,2}/, '').trimEnd()
    if (k > 0 && raw.trim() && out.length && out[out.length - 1] !== '' && wrapsInto(prevRaw, raw, width)) {
      out[out.length - 1] += ' ' + text.trim()
    } else {
      out.push(text)
    }
    prevRaw = raw
  }
  while (out.length && !out[out.length - 1].trim()) out.pop()
  return out
}

function toolStep(b: Block): string {
  const first = b.rows[0].replace(TREE, '').replace(/\s*\(ctrl\+o to expand\)$/, '').trim()
  const result = b.rows
    .slice(1)
    .map((r) => r.replace(TREE, '').trim())
    .find((r) => r && !/^\(ctrl\+/.test(r))
  return result ? `${first} · ${result}` : first
}


/** Recent readable rows (conversation and dialog), without chrome. */
function transcriptOf(layout: ClaudeLayout, v: ClaudeVocabulary): string[] {
  const { lines, dialog, composer, convEnd } = layout
  const end = dialog ? lines.length : composer ? composer.top : convEnd
  const out: string[] = []
  for (let i = end - 1; i >= 0 && out.length < TRANSCRIPT_LINES; i--) {
    const l = lines[i]
    if (!l.trim() || v.banner.test(l) || isRule(l) || isDashedRule(l) || isBoxArt(l)) continue
    if (anyMatch(v.chrome, l) || (v.spinner.test(l) && !v.statusRow.test(l))) continue
    if (dialog && i > dialog.top && anyMatch(v.dialog.hint, l)) continue
    const t = l.replace(v.bullet, '').replace(TREE, '').trim()
    if (t) out.push(t)
  }
  return out.reverse()
}


/**
 * The tabs of a dialog with several questions, from the tab row above the question:
 * their titles, and which one is shown — the first unanswered (☐) tab, since the tab
 * row marks the shown one only by colour. A multi-select tab turns ☒ once a box is
 * ticked, so then the shown one is the last answered tab before the first ☐ … unless
 * it is the first tab. Absent on the review tab and for a single question.
 */
function questionsOf(layout: ClaudeLayout, v: ClaudeVocabulary): DialogReading['questions'] {
  const { lines, dialog } = layout
  if (!dialog) return undefined
  for (let i = dialog.questionStart - 1; i >= Math.max(0, dialog.questionStart - 4); i--) {
    const row = v.tabRow.exec(lines[i])
    if (!row) continue
    const tabs = [...row[1].matchAll(v.tab)].map((m) => ({ answered: m[1] !== '☐', title: m[2].trim() }))
    const asked = tabs.filter((t) => !v.reviewTab.test(t.title))
    if (asked.length < 2) return undefined
    const ticking = dialog.blocked.multi_select === true && dialog.blocked.options.some((o) => o.checked)
    let current = asked.findIndex((t) => !t.answered) + 1
    if (current === 0) {
      if (!ticking) return undefined // every tab answered: the review is shown
      current = asked.length + 1
    }
    // a multi-select tab being answered is already ☒: it is the one before the first ☐
    if (ticking && current > 1) current--
    return { titles: asked.map((t) => t.title), current }
  }
  return undefined
}

/** Read a Claude Code screen. Anything unrecognised degrades to the fallback reading. */
export function readClaude(screen: string, agent: AgentInfo | undefined, v: ClaudeVocabulary = V): ScreenReading {
  const layout = layoutOf(screen, v)
  const mode = modeOf(layout, v)
  // only the current turn matters: start at the last echoed prompt (a stale answer
  // above it is not this turn's); the prompt row itself opens the first block
  let turnRow = 0
  if (!layout.dialog) {
    for (let i = layout.convEnd - 1; i >= 0; i--) {
      if (v.promptLine.test(layout.lines[i])) {
        turnRow = i
        break
      }
    }
  }
  const blocks = layout.dialog ? [] : blocksOf(layout, v, turnRow)
  const recognised =
    !!layout.composer || !!layout.dialog || blocks.some((b) => b.kind !== 'other') || layout.lastRule >= 0
  if (!recognised) return { ...fallbackRead(screen), rule: 'claude:unrecognised>fallback' }

  const transcript = transcriptOf(layout, v)
  const base = { transcript: transcript.length ? transcript : undefined, parsed: true }
  const withMode = (r: ScreenReading): ScreenReading => (mode !== undefined ? { ...r, permission_mode: mode } : r)

  if (layout.dialog) {
    const { blocked, context, submitFocused } = layout.dialog
    const numbered = blocked.options.some((o) => o.index > 0)
    const questions = questionsOf(layout, v)
    return withMode({
      ...base,
      headline: blocked.question,
      detail: context.length ? context.join('\n') : blocked.question,
      blocked: questions ? { ...blocked, questions } : blocked,
      identity: context.filter((r) => !/[☐☒]/.test(r)),
      drive: { kind: blocked.multi_select ? 'multi-select' : numbered ? 'numbered' : 'menu', submitFocused },
      rule: numbered ? 'dialog:numbered' : 'dialog:cursor-menu',
    })
  }

  // herdr says blocked but no whole dialog is readable (cut screen, new layout): the
  // question row, if one is under the last rule, is still the best headline
  if (agent?.agent_status === 'blocked' && layout.lastRule >= 0) {
    for (let i = layout.lines.length - 1; i > layout.lastRule; i--) {
      const t = layout.lines[i].trim()
      if (/\?$/.test(t) && !v.promptLine.test(t)) {
        return withMode({ ...base, headline: t, detail: t, rule: 'blocked:question-without-options' })
      }
    }
  }

  // the current turn only: after the last echoed prompt (a stale answer is not this turn's)
  const turn = readTurn(
    {
      blocks,
      isPrompt: (b) => b.kind === 'prompt',
      isProse: (b) => b.kind === 'prose',
      isTool: (b) => b.kind === 'tool',
      proseOf: (b) => proseLines(b.rows, layout.width),
      stepOf: (b) => toolStep(b),
    },
    agent,
    agent?.agent_status === 'working',
    '',
  )
  return withMode({ ...base, ...turn })
}

export const claudeGrammar: ScreenGrammar = {
  kinds: ['claude', 'claude-code'],
  digitSelects: true,
  drives: V.drives,
  read: (screen, agent) => readClaude(screen, agent),
  permissionMode: (screen) => modeOf(layoutOf(screen)),
  dialog: (screen): DialogReading | undefined => layoutOf(screen).dialog?.blocked,
}
