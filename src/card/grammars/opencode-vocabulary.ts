// opencode's screen vocabulary as DATA (docs/reference/herdr-cli.md §9.3, fixtures/screens/opencode,
// opencode 1.18.33). A wording or glyph change is an edit here, not in opencode.ts.
import { seenIn } from '../seen'
import type { DialogVocabulary } from '../dialog'
import type { DialogDrive } from '../drive'

export interface OpencodeVocabulary {
  /** a row inside a ┃-framed block (user prompts, tool boxes, the prompt box, dialogs) */
  frame: RegExp
  /** what to cut off a framed row to get its content (keeps deeper indentation) */
  frameStrip: RegExp
  /** the prompt box's bottom edge ("╹▀▀▀…"); the conversation ends at the box above it */
  inputBottom: RegExp
  /** first content row of a framed block that makes it a tool box, not a user prompt */
  framedTool: RegExp[]
  /** an unframed one-row tool step at the prose column ("$ touch …", "← Edit hello.txt") */
  inlineTool: RegExp[]
  /** the turn's agent/model row: "▣  Build · Mock Claude" (working), "… · 3.3s" (done) */
  statusRow: RegExp
  /** unframed rows that are never conversation (tips, hints) */
  chrome: RegExp[]
  /** a running tool's spinner glyph in front of its command */
  spinner: RegExp
  /** hint rows that make a framed block at the bottom a live dialog */
  dialogHint: RegExp[]
  /** the hint of a question call's review tab (no options: Enter submits the answers) */
  reviewHint: RegExp
  /** the permission dialog's title row: group 1 is the question */
  permissionTitle: RegExp
  /** where the hints start on a button row ("ctrl+f fullscreen  ⇆ select  enter confirm") */
  hintStart: RegExp
  /** opencode's exit summary ("Session   <title>" / "Continue  opencode -s ses_…") */
  exitSummary: RegExp[]
  /** numbered question picker, read by the shared dialog reader (no cursor glyph: colour only) */
  question: DialogVocabulary
  /** columns opencode keeps free right of wrapped prose (soft-wrap detection) */
  wrapSlack: number
  /** how each kind of dialog is answered (DialogDrive, src/card/drive.ts) */
  drives: Record<'permission' | 'question', DialogDrive>
}

const NEVER = /(?!)/

// every entry below was seen in opencode 1.18.33 (the corpus version); seenIn tags them
export const opencodeVocabulary: OpencodeVocabulary = seenIn('1.18.33', {
  frame: /^\s*┃/,
  frameStrip: /^\s*┃ {0,2}/,
  inputBottom: /^\s*╹▀{3,}/,
  framedTool: [
    /^[$←→✱⚙◇%~]\s/, // $ bash, ← edit/write, → read, ✱ grep/glob, ⚙ other tools
    /^#\s+\S/, // "# Questions", "# Todos", "# Shell command"
    /^[\u2800-\u28ff]\s+\S/, // a running command: "⠙ sleep 8 && echo slow-ok"
  ],
  inlineTool: [/^[$←→✱⚙◇%~]\s+\S/, /^[\u2800-\u28ff]\s+\S/],
  statusRow: /^▣\s+/,
  chrome: [/^● Tip\b/, /^(?:tab agents|ctrl\+p commands)\b/],
  spinner: /^[\u2800-\u28ff]\s+/,
  dialogHint: [/↑↓ select/, /⇆ (?:select|tab)/, /\benter (?:submit|confirm|toggle)\b/, /\besc dismiss\b/],
  reviewHint: /⇆ tab\s+enter submit\b/,
  permissionTitle: /^△\s+(\S.*)$/,
  hintStart: /(?:^|\s{2,})(?:ctrl\+\S+|⇆|↑↓|enter|esc|tab)\s/,
  exitSummary: [/^Session\s{2,}\S/, /^Continue\s+opencode\b/],
  question: {
    cursor: NEVER,
    // groups (indent)(cursor: never)(number)(label)
    option: /^(\s*)(?:(\u0000)\s*)?(\d{1,2})\.\s+(\S.*)$/,
    hint: [/↑↓ select/, /\benter (?:submit|confirm|toggle)\b/, /\besc dismiss\b/, /⇆ tab/],
    optionHint: [],
    checkbox: /^\[([ x✔✓•])\]\s*/,
    chip: NEVER,
    freeText: [/^Type your own answer$/],
  },
  wrapSlack: 3,
  // opencode 1.18.33 (corpus opencode 09→10, 11→12): the permission buttons are one row,
  // "⇆ select" = ←/→ moves the highlight, Enter confirms. The question picker: ↑/↓ and
  // Enter ("↑↓ select  enter submit"). Its "Type your own answer" row is not driven yet.
  drives: {
    permission: { pick: { by: 'arrows' }, prev: 'left', next: 'right', confirm: 'enter' },
    question: { pick: { by: 'arrows' }, prev: 'up', next: 'down', confirm: 'enter' },
  },
})
