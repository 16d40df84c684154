// Codex CLI's screen vocabulary as DATA (corpus codex-*, Codex CLI 0.171.0). Codex rewords
// its TUI often: a wording change is an edit to this table, not to codex.ts. Each entry
// that decides a card carries the rule id the card reports (X-Gothalo-Rule, explain).
import type { DialogVocabulary } from '../dialog'
import type { DialogDrive } from '../drive'

/** A dialog codex draws in place of its footer: its title row and the rule id it reports. */
export interface CodexDialogKind {
  /** rule id, e.g. `codex.dialog.command` */
  rule: string
  /** the title row (trimmed); group 1, when present, is the question (else the whole row) */
  title: RegExp
  /**
   * a menu the user opened (/permissions and its "Enable full access?"): nobody asked the
   * user anything, so unless herdr calls the pane blocked the conversation heads the card
   */
  userMenu?: boolean
}

export interface CodexVocabulary {
  /** a cell at column 0: "• text" (the working bullet blinks •/◦) */
  cell: RegExp
  /** an echoed prompt, and the composer: "› text" at column 0 */
  prompt: RegExp
  /** the composer's placeholder ("› Ask Codex to do anything") */
  placeholder: RegExp
  /** footer rows under the composer (model · cwd · title, key hints, the mode label) */
  footer: RegExp[]
  /** the live status line: "• Working (2s • esc to interrupt)" or the reasoning summary in its place */
  status: RegExp
  /** what to cut off a status row to keep its text ("(14s • esc to interrupt) · 1 background …") */
  statusTail: RegExp
  /** a reconnecting status ("Reconnecting... 5/5") */
  reconnecting: RegExp
  /** the separator that ends a finished turn: "Worked for 3s • 16:00" */
  doneMarker: RegExp
  /** "■ Conversation interrupted - use /feedback …": the user stopped the turn */
  interrupted: RegExp
  /** "■ <error>": the turn ended with an error (any other ■ row) */
  turnError: RegExp
  /**
   * cells that are tool steps (after the bullet); a sentence with no "└" row under it is
   * prose, and so is "Proposed Plan" (the plan's markdown is the model's own words)
   */
  toolCell: RegExp[]
  /** the plan checklist's cell ("Updated Plan · 1/3 complete") */
  planCell: RegExp
  /** checklist rows under the plan cell: group 1 the box, group 2 the step */
  planItem: RegExp
  /** cells and column-0 rows that are notices, not assistant prose */
  infoCell: RegExp[]
  /** rows never part of the conversation (tips, background terminals, "+ Show details") */
  chrome: RegExp[]
  /** the startup header's first row; the rows under it up to a blank row are the header */
  banner: RegExp
  /** codex quit and printed how to resume */
  exitSummary: RegExp[]
  /** `codex resume`'s full-screen session picker (not a question to the user) */
  picker: RegExp
  /** the picker's selected row */
  pickerRow: RegExp
  /** the footer label of the Plan collaboration mode (Shift+Tab cycles Default/Plan) */
  planModeLabel: RegExp
  /** request_user_input's progress row above its question ("Question 1/2 (1 unanswered)") */
  questionProgress: RegExp
  /**
   * an MCP form's progress row ("Field 1/1", "Field 1/1 (1 required unanswered)"): above a
   * tool approval's title, or above an elicitation's message (the question) and field name
   */
  fieldProgress: RegExp
  /** the dialogs, by title; the first whose title is above the options names the rule */
  dialogs: CodexDialogKind[]
  /** options, cursor and hint rows, read by the shared dialog reader */
  dialog: DialogVocabulary
  /** columns between an option's label and its description ("say_hello  Matches …") */
  descriptionGap: RegExp
  /** how POST /answer answers a codex dialog (src/card/drive.ts) */
  drives: Record<'numbered', DialogDrive>
}

export const codexVocabulary: CodexVocabulary = {
  cell: /^[•◦]\s/,
  prompt: /^›(?:\s|$)/,
  placeholder: /^›\s+Ask Codex to do anything$/,
  footer: [
    /^\s{2}\S.* · \/\S*/, // "  GPT-5.5 default · /home/me/proj · Title"
    /^\s{2}(?:← for agents · )?\? for shortcuts\b/,
    /Plan mode \(shift\+tab to cycle\)(?:\s*$|\s+·\s)/,
    /^\s{2}(?:⚠ )?\d+ warnings? · /,
  ],
  status: /^[•◦]\s.*\(\s*(?:\d+[hms]\s*)+•\s*esc to interrupt\)/,
  statusTail: /\s*\(\s*(?:\d+[hms]\s*)+•\s*esc to interrupt\).*$/,
  reconnecting: /^Reconnecting\.\.\.\s*\d+\/\d+/,
  doneMarker: /^\s*(?:─+\s*)?Worked for (?:<\s*)?\d.*?(?:•\s*\d{1,2}:\d{2})?(?:\s*─+)?$/,
  interrupted: /^■\s+Conversation interrupted\b/,
  turnError: /^■\s+(\S.*)$/,
  toolCell: [
    /^(?:Ran|Running|Explored|Exploring|Added|Edited|Deleted|Searched|Waited|Called|Viewed)\s/,
    /^(?:Explored|Exploring)$/,
    /^Exited \(status -?\d+\)/,
    /^Updated Plan\b/,
    /^Questions? \d+\/\d+ answered\b/,
    /^(?:Web search|Searched the web)\b/i,
  ],
  planCell: /^Updated Plan\b/,
  planItem: /^\s*(?:└\s*)?([□✔☐☑■◻◼])\s+(\S.*)$/,
  infoCell: [
    /^Model changed to\b/,
    /^(?:✔|✗)\s+You (?:approved|canceled|cancelled|denied|rejected)\b/,
    /^(?:Approved|Denied|Rejected)\b.*\bcommand\b/,
    /^Collaboration mode\b/,
    /^(?:New session|Session resumed|Context compacted)\b/,
  ],
  chrome: [
    /^\s*└\s*Tip:/,
    /^\s*\d+ background terminals? running\b/,
    /^\s*\+ Show details$/,
    /^\s*\+ \d+ lines? \(\^t to expand\)$/,
    /^\s*To get started, describe a task\b/,
    /^\s*\/\w+ - \S/, // the startup command list ("/init - create an AGENTS.md …")
  ],
  banner: /^\s*>_ OpenAI Codex\b/,
  exitSummary: [/^To continue this session, run:/, /^\s*codex resume [0-9a-f-]{8,}/, /^Token usage: total=/],
  picker: /^\s*Resume a previous session$/,
  pickerRow: /^\s*›\s+(\S.*)$/,
  // the label may share its row with a notice ("Plan mode (shift+tab to cycle) · ⚠ 1 warning · f2 to view")
  planModeLabel: /Plan mode \(shift\+tab to cycle\)(?:\s*$|\s+·\s)/,
  questionProgress: /^\s*Questions? \d+\/\d+(?: \(\d+ unanswered\))?$/,
  // seen in 0.171.0 (fixtures/screens/codex-mcp)
  fieldProgress: /^\s*Field \d+\/\d+(?: \(\d+ required unanswered\))?$/,
  dialogs: [
    { rule: 'codex.dialog.command', title: /^(Would you like to run the following command\?)/ },
    { rule: 'codex.dialog.patch', title: /^(Would you like to make the following edits\?)/ },
    // write_stdin into a command that runs outside the sandbox (0.171.0: "… to terminal 85218?")
    { rule: 'codex.dialog.stdin', title: /^(Would you like to send input to (?:the existing terminal|terminal \S+)\?)/ },
    // an MCP tool call under on-request (0.171.0, under "Field 1/1")
    { rule: 'codex.dialog.mcp', title: /^(Allow the .+ MCP server to run tool .+\?)$/ },
    // request_permissions (feature request_permissions_tool): filesystem and network grants
    { rule: 'codex.dialog.permissions', title: /^(Would you like to grant these permissions\?)/ },
    { rule: 'codex.dialog.network', title: /^(Would you like to (?:allow|grant)\b.*\?|Do you want to approve network access to \S.*\?)/ },
    { rule: 'codex.dialog.implement-plan', title: /^(Implement this plan\?)$/ },
    { rule: 'codex.dialog.trust', title: /^(Trust this folder\?|Do you trust the files in this folder\?)/ },
    // the user's own menus: /permissions ("Update Model Permissions") and its confirmation
    { rule: 'codex.dialog.full-access', title: /^(Enable full access\?)$/, userMenu: true },
    // seen in 0.171.0: /permissions, /model, /review (fixtures/screens/codex-permissions, codex-menus)
    { rule: 'codex.dialog.menu', title: /^(Update Model Permissions|Select Model and Effort|Select a review preset)$/, userMenu: true },
  ],
  dialog: {
    cursor: /^\s*›\s*/,
    // groups (indent)(cursor?)(number)(label)
    option: /^(\s*)(?:(›)\s*)?(\d{1,2})\.\s+(\S.*)$/,
    // pickers draw each choice's description in a column aligned across the rows ("Approve for me   Only ask …")
    describe: { column: true },
    hint: [
      /^\s*Press enter to confirm or esc to cancel\b/,
      /^\s*enter (?:select|continue|confirm)\b.*·\s*esc\b/,
      /\benter to submit answer\b/,
      /^\s*tab to add notes\b/,
    ],
    optionHint: [],
    checkbox: /^\[([ x✔✓])\]\s*/,
    chip: /(?!)/,
  },
  descriptionGap: /\s{2,}\S.*$/,
  drives: {
    // every codex dialog is a numbered list where a digit picks AND confirms at once (real
    // 0.171.0: "1" applied an edit, "2" answered a request_user_input question, "3" left
    // "Implement this plan?" in Plan mode). "None of the above" takes notes only after Tab,
    // which is not driven: no option is free_text.
    numbered: { pick: { by: 'digit', acts: true }, prev: 'up', next: 'down', confirm: 'enter' },
  },
}
