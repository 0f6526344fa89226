#!/usr/bin/env node
/**
 * A fake switch command line, run by the real sshd of test/kit/sshd.ts as its ForceCommand:
 * `node fake-cli.mjs /path/to/switch1.cfg`. The prompt is the file's name (`switch1#`).
 *
 * It answers what a configuration collector sends to a Cisco-like device:
 * - `terminal length 0` turns the pager off (`terminal width 0` and `enable`, at a privileged prompt, do nothing);
 * - `show running-config` prints the file, re-read at every command, so a test changes the
 *   "running configuration" by writing the file between two fetches;
 * - `exit` (or `quit`, `logout`) ends the session; anything else gets the IOS error line.
 *
 * With a terminal (an interactive shell with a PTY) it puts the terminal in raw mode and echoes what
 * is typed, as a switch does, so that a pager answer (one space, no Enter) reaches it. Unless paging is
 * off, output comes in pages of PAGE_LINES lines, each followed by ` --More-- `; a space shows the next
 * page, `q` ends the listing, and the prompt text is erased with backspaces as IOS does. Without a
 * terminal it reads lines; `ssh host 'show running-config'` (exec mode) runs that one command.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'

const PAGE_LINES = 20
const MORE = ' --More-- '
const file = process.argv[2]
if (!file) {
  process.stderr.write('usage: fake-cli.mjs <switch.cfg>\n')
  process.exit(2)
}
const hostname = path.basename(file).replace(/\.cfg$/, '')
const prompt = `${hostname}#`
const tty = Boolean(process.stdin.isTTY)
let paging = tty

const out = (s) => process.stdout.write(s)

function runningConfig() {
  const text = readFileSync(file, 'utf8').replace(/\r\n/g, '\n')
  const body = text.endsWith('\n') ? text : text + '\n'
  return `Building configuration...\n\nCurrent configuration : ${Buffer.byteLength(body)} bytes\n${body}`
}

/** Lines still to print and what to do once they are out (the pager waits for a key in between). */
let pending = null
let pendingDone = null

function printPaged(text, done) {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  if (!paging) {
    out(lines.map((l) => l + '\n').join(''))
    return done()
  }
  pending = lines
  pendingDone = done
  nextPage()
}

function nextPage() {
  const page = pending.splice(0, PAGE_LINES)
  out(page.map((l) => l + '\n').join(''))
  if (pending.length === 0) return finishListing()
  out(MORE)
}

function finishListing() {
  const done = pendingDone
  pending = null
  pendingDone = null
  done()
}

/** A key pressed at ` --More-- `: erase the pager text, then go on (space, Enter) or stop (q). */
function pagerKey(ch) {
  out('\b'.repeat(MORE.length) + ' '.repeat(MORE.length) + '\b'.repeat(MORE.length))
  if (ch === 'q' || ch === 'Q' || ch === '\x03') {
    pending = []
    return finishListing()
  }
  nextPage()
}

function command(line, done) {
  const c = line.trim().replace(/\s+/g, ' ')
  if (c === '') return done()
  if (c === 'exit' || c === 'quit' || c === 'logout') process.exit(0)
  if (c === 'terminal length 0') {
    paging = false
    return done()
  }
  // Already privileged (the prompt ends in #): `enable` changes nothing, as on IOS.
  if (c.startsWith('terminal width ') || c === 'enable') return done()
  if (c === 'show running-config' || c === 'show run') return printPaged(runningConfig(), done)
  out(`% Invalid input detected at '^' marker.\n`)
  done()
}

const showPrompt = () => out(prompt)

// Exec mode: the client asked for one command (sshd puts it here under ForceCommand).
const original = process.env.SSH_ORIGINAL_COMMAND
if (original && original.trim() !== '') {
  paging = false
  command(original, () => process.exit(0))
} else if (tty) {
  process.stdin.setRawMode(true)
  let line = ''
  let afterCr = false
  showPrompt()
  process.stdin.on('data', (buf) => {
    for (const ch of buf.toString('utf8')) {
      // CR LF is one Enter, as on a switch.
      const lf = ch === '\n' && afterCr
      afterCr = ch === '\r'
      if (lf) continue
      if (pending) {
        pagerKey(ch)
        continue
      }
      if (ch === '\r' || ch === '\n') {
        out('\n')
        const l = line
        line = ''
        command(l, showPrompt)
      } else if (ch === '\x7f' || ch === '\b') {
        if (line.length > 0) {
          line = line.slice(0, -1)
          out('\b \b')
        }
      } else if (ch === '\x03' || ch === '\x04') {
        process.exit(0)
      } else if (ch >= ' ') {
        line += ch
        out(ch)
      }
    }
  })
} else {
  let buffered = ''
  showPrompt()
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (s) => {
    buffered += s
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const l = buffered.slice(0, i)
      buffered = buffered.slice(i + 1)
      command(l, showPrompt)
    }
  })
  process.stdin.on('end', () => process.exit(0))
}
