// @ts-check
/**
 * The REPL's history across sessions: one entry a line in ~/.termite_history (or the
 * file $TERMITE_HISTORY names), oldest first, at most MAX_ENTRIES kept. A multi-line
 * entry is kept as one line (`oneLine`), so the up arrow recalls it whole and it is
 * edited as one. A history file that cannot be read or written never stops the REPL:
 * it is said once and the session goes on without it.
 */
import { readFileSync, appendFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Entries kept (the file is trimmed to this when it is read). */
export const MAX_ENTRIES = 1000;

/** @param {Record<string, string|undefined>} [env] */
export function historyFile(env = process.env) {
  return env.TERMITE_HISTORY || path.join(os.homedir(), '.termite_history');
}

/**
 * The entries of `file`, newest first (readline's order); [] when there is none.
 * @param {string} file @param {(s: string) => void} warn
 * @returns {string[]}
 */
export function loadHistory(file, warn) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (/** @type {any} */ (e).code !== 'ENOENT') warn(`history not read from ${file}: ${/** @type {Error} */ (e).message}`);
    return [];
  }
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length > MAX_ENTRIES) {
    lines.splice(0, lines.length - MAX_ENTRIES);
    try {
      writeFileSync(file, lines.join('\n') + '\n');
    } catch {
      // trimming is an economy, not a need
    }
  }
  return lines.reverse();
}

/** Appends entries to the history file; after a failure, says so once and stops. */
export class HistoryWriter {
  /** @param {string} file @param {(s: string) => void} warn */
  constructor(file, warn) {
    this.file = file;
    this.warn = warn;
    this.failed = false;
  }
  /** @param {string} entry one line */
  add(entry) {
    if (this.failed || entry.trim() === '') return;
    try {
      appendFileSync(this.file, entry + '\n', { mode: 0o600 });
    } catch (e) {
      this.failed = true;
      this.warn(`history not saved to ${this.file}: ${/** @type {Error} */ (e).message}`);
    }
  }
}

/**
 * A multi-line Scheme entry as one line that reads the same: outside strings a run of
 * blanks and newlines becomes one space, a newline inside a string becomes `\n`, and
 * `;` comments are dropped (they would swallow the rest of the line).
 * @param {string} text
 */
export function oneLine(text) {
  let out = '';
  let inString = false;
  let inComment = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inComment) {
      if (c === '\n') {
        inComment = false;
        if (out !== '' && !/\s$/.test(out)) out += ' ';
      }
      continue;
    }
    if (inString) {
      if (c === '\\' && i + 1 < text.length) {
        out += c + text[++i];
        continue;
      }
      if (c === '"') inString = false;
      out += c === '\n' ? '\\n' : c;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === ';') {
      inComment = true;
      continue;
    } else if (c === '\\' && text[i - 1] === '#' && i + 1 < text.length) {
      out += c + text[++i]; // a character literal: #\; #\"
      continue;
    }
    if (/\s/.test(c)) {
      if (out !== '' && !/\s$/.test(out)) out += ' '; // outside strings, a run of blanks is one
      continue;
    }
    out += c;
  }
  return out.replace(/\s+$/, '');
}
