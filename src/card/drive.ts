// How a dialog is answered from the phone, as data each grammar declares next to its
// wording (claude-vocabulary.ts, opencode-vocabulary.ts, pi-vocabulary.ts), and the
// dialog fingerprint that tells two dialogs apart. Pure; the key sequence is played by
// src/answer/driver.ts, which re-reads the screen between keys.
import { createHash } from 'node:crypto'

/** herdr key names (docs/reference/herdr-cli.md §6.1): 'enter', 'down', 'right', a digit … */
export type KeyName = string

export interface DialogDrive {
  /**
   * How one option is picked. `digit`: type the option's number; `acts` = the digit
   * answers at once (Claude Code), else it only moves the cursor and `confirm` follows.
   * `arrows`: move the cursor with prev/next from the highlighted option, then `confirm`.
   */
  pick: { by: 'digit'; acts: boolean } | { by: 'arrows' }
  /** the keys that move the cursor to the previous / next option */
  prev: KeyName
  next: KeyName
  /** the key that confirms the highlighted option (or the submit row) */
  confirm: KeyName
  /**
   * Multi-select: how an option's box is ticked (`digit`: its number toggles it, the
   * cursor stays) and where the submit row is (`after-last-box`: one `next` past the
   * last box, as Claude Code's "Next" row). Absent: the dialog is single-choice.
   */
  multi?: { toggle: { by: 'digit' }; submit: 'after-last-box' }
  /**
   * Free-text options: once the option has the cursor (a digit moves it there without
   * acting, or arrows), the text is typed into the row and `confirm` submits it.
   * Absent: this dialog kind cannot take text (422).
   */
  text?: { into: 'highlighted-row' }
}

/**
 * The dialog's identity: kind, question and option labels in order, plus the rows the
 * grammar names as telling it apart (DialogReading.identity). Not the cursor nor the
 * ticks, so moving around a dialog keeps it; 16 hex digits of SHA-256.
 */
export function fingerprintOf(kind: string, question: string, labels: readonly string[], identity: readonly string[] = []): string {
  const h = createHash('sha256')
  // two permission prompts share question and buttons: what they ask about tells them apart
  h.update(JSON.stringify([kind.trim().toLowerCase(), question, labels, identity]))
  return h.digest('hex').slice(0, 16)
}
