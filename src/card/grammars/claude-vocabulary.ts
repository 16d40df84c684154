// Claude Code's screen vocabulary as DATA (docs/reference/claude-code.md §8, fixtures/screens/cc-*,
// Claude Code 2.1.197). Claude Code rewords its TUI often: a wording change should be
// an edit to this table, not to the parser in claude.ts.
import type { DialogVocabulary } from '../dialog'
import type { DialogDrive } from '../drive'

export interface ModeLabel {
  /** matched against the footer row's label (the text between the glyph and "on") */
  label: RegExp
  mode: string
}

export interface ClaudeVocabulary {
  /** message / tool bullet at column 0 (⏺ on macOS, ● elsewhere) */
  bullet: RegExp
  /** result gutter under a tool row */
  resultGutter: RegExp
  /** the prompt glyph of the composer and of echoed user prompts */
  promptLine: RegExp
  /** live spinner row: glyph + gerund + "…" (the verb is random) */
  spinner: RegExp
  /** turn-complete / waiting rows that share the spinner glyphs ("✻ Worked for 25s") */
  statusRow: RegExp
  /** tool call shapes after the bullet: Bash(…), Web Search("…"), github - x (MCP)(…) */
  toolCall: RegExp[]
  /** bullet rows that are notices, not assistant prose */
  infoRow: RegExp[]
  /** rows indented under the conversation that are tool groups/status, not prose */
  toolRow: RegExp[]
  /** chrome that is never transcript material (hints, tips, panels, timestamps) */
  chrome: RegExp[]
  /** footer rows naming the permission mode: the first group is the label */
  modeRow: RegExp
  /** known labels → canonical mode names; any other label is reported raw, lowercased */
  modes: ModeLabel[]
  /** a footer without a mode label under the composer means the default mode */
  defaultMode: string
  /** the welcome banner box rows */
  banner: RegExp
  dialog: DialogVocabulary
  /** the tab row of a dialog with several questions: "←  ☐ Features  ☒ Database  ✔ Submit  →" */
  tabRow: RegExp
  /** one tab in it: group 1 the mark, group 2 the title */
  tab: RegExp
  /** the last tab that reviews the answers, not a question */
  reviewTab: RegExp
  /** how each kind of dialog is answered (DialogDrive, src/card/drive.ts), by the kind claude.ts reads */
  drives: Record<'numbered' | 'multi-select' | 'menu', DialogDrive>
}

export const claudeVocabulary: ClaudeVocabulary = {
  bullet: /^[●⏺]\s?/,
  resultGutter: /^\s*⎿/,
  promptLine: /^[❯>](?:\s|$)/,
  spinner: /^[·✢✳✶✻✽✱✲✴✵✷✸✹✺✼✾✿*+]\s+\S.*…/,
  statusRow: /^[·✢✳✶✻✽✱✲✴✵✷✸✹✺✼✾✿*+]\s+(?:\S+ for \d|Waiting for |\S.*\bstill running\b)/,
  toolCall: [
    /^[A-Za-z][\w-]*\(/, // Bash(, Write(, claude(
    /^[A-Z][\w-]*(?: [A-Z][\w-]*){1,2}\(/, // Web Search(
    /^[\w.-]+ - [\w.-]+ \(MCP\)\(/, // coder - coder_report_task (MCP)(
  ],
  infoRow: [
    /^User (?:answered|approved|rejected|declined|denied)\b/,
    /^\d+ (?:agents?|tasks?|shells?) (?:finished|completed|launched|running)/,
    /^(?:Agent|Background command|Dynamic workflow|Task) ".*" (?:finished|completed|failed|stopped|killed)/,
    /^Monitor event/,
    /^(?:Updated|Exited|Entered) plan(?: mode)?\b/,
    /^How is Claude doing this session\?/,
    /^Stop Task\b/,
    /\(ctrl\+o to expand\)$/,
  ],
  toolRow: [
    /^(?:Thought|Thinking) for \d/,
    /\(ctrl\+o to expand\)$/,
    /\(ctrl\+b ctrl\+b \(twice\) to run in background\)$/,
    /^(?:Read|Reading|Searched|Searching|Listed|Listing|Ran|Running|Wrote|Writing|Edited|Editing|Fetched|Fetching|Updated|Updating|Created|Creating) \d+ \w+/,
    /^Running \d+ agents?…/,
    /^\d+ tasks? \(\d+ done/,
    /^[✔✓◻☐☒■□◼]\s/,
  ],
  chrome: [
    /^\s*⎿\s+Tip:/,
    /^\s*(?:Esc to cancel|Enter to (?:select|confirm)|↑\/↓ to navigate|Tab\/Arrow keys to navigate|ctrl\+g to edit)/i,
    /^\s*shift\+tab to approve/,
    /^\s{20,}\d{1,2}:\d{2} (?:AM|PM) \S+$/, // right-aligned timestamps in the ctrl+o transcript view
    /^\s*Showing detailed transcript\b/,
    /tmux focus-events off/,
    /^\s*[●◯] (?:main|general-purpose|Explore|Plan)\b.*(?:\d+s|waiting)?$/, // agents panel
    /^\s*\? for shortcuts/,
    /^\s*\(ctrl\+\w[^)]*(?:\([^)]*\))?[^)]*\)$/, // "(ctrl+o to expand)", "(ctrl+b ctrl+b (twice) to run in background)"
  ],
  modeRow: /^\s*(?:⏵⏵|⏸|▶▶|▸▸|⏵|▶|⏩)\s+(.+?)\s+on\b/,
  modes: [
    { label: /^(?:auto-)?accept edits$/i, mode: 'acceptEdits' },
    { label: /^plan mode$/i, mode: 'plan' },
    { label: /^auto mode$/i, mode: 'auto' },
    { label: /^bypass permissions$/i, mode: 'bypassPermissions' },
  ],
  defaultMode: 'default',
  banner: /^[╭│╰]/,
  dialog: {
    cursor: /^\s*[❯›]\s*/,
    option: /^(\s*)(?:([❯›])\s*)?(\d{1,2})\.(?:\s+|(?=\S))(\S.*)$/,
    hint: [
      /^\s*Esc to cancel\b/i,
      /^\s*Enter to (?:select|confirm)\b/i,
      /↑\/↓ to navigate|Tab\/Arrow keys to navigate/i,
      /^\s*ctrl\+g to edit\b/i,
    ],
    // hint rows under an option ("shift+tab to approve with this feedback") are not its label
    optionHint: [/^\s*shift\+tab to\b/i, /^\s*\(esc\)$/],
    checkbox: /^\[([ x✔✓×])\]\s*/,
    chip: /^[☐☒✔←→\s]+/,
    // 2.1.197 and 2.1.332: AskUserQuestion's own-answer row, the plan review's feedback row
    freeText: [/^Type something\.?$/, /^Tell Claude what to change$/],
    // 2.1.332 multi-select: "❯    Next" under the boxes (the last tab's is "Submit")
    submitFocused: /^\s*[❯›]\s+(?:Next|Submit)$/,
  },
  tabRow: /^\s*←\s+(.*\S)\s+→\s*$/,
  tab: /([☐☒✔])\s+(\S(?:.*?\S)?)(?=\s{2,}[☐☒✔]|\s*$)/g,
  reviewTab: /^Submit$/,
  // Observed on 2.1.332 (fixtures/screens-answer/cc332-*): a digit answers a numbered
  // option at once, but on a free-text row ("Type something", "Tell Claude what to
  // change") it only moves the cursor there: the typed text replaces the row's label
  // and Enter sends it. In a multi-select form a digit ticks its box (the cursor stays)
  // and the "Next" row one Down past the last box submits the tab.
  drives: {
    numbered: { pick: { by: 'digit', acts: true }, prev: 'up', next: 'down', confirm: 'enter', text: { into: 'highlighted-row' } },
    'multi-select': {
      pick: { by: 'digit', acts: true },
      prev: 'up',
      next: 'down',
      confirm: 'enter',
      multi: { toggle: { by: 'digit' }, submit: 'after-last-box' },
    },
    // cursor-only menus (the trust dialog): arrows, then Enter
    menu: { pick: { by: 'arrows' }, prev: 'up', next: 'down', confirm: 'enter' },
  },
}
