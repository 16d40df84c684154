// Builds the single binary with package.json's own "build" command (only the
// output path changed) and runs it, reading its stdout as it comes. Shared by
// test/binary and bench/binary.ts.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export const ROOT = resolve(import.meta.dir, '../..')

/** `npm run build` into `outfile`; throws with bun's output when it fails. */
export async function buildBinary(outfile = join(mkdtempSync(join(tmpdir(), 'gothalo-bin-')), 'gothalo')): Promise<string> {
  const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build
  const args = script.split(/\s+/)
  if (args[0] !== 'bun' || !args.includes('dist/gothalo')) throw new Error(`unexpected build script: ${script}`)
  const argv = [process.execPath, ...args.slice(1).map((a) => (a === 'dist/gothalo' ? outfile : a))]
  const p = Bun.spawn(argv, { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (code !== 0) throw new Error(`build failed (${code}): ${out}${err}`)
  return outfile
}

export interface Running {
  proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>
  /** everything printed on stdout so far */
  stdout(): string
  /** everything printed on stderr, once stopped */
  stderr(): string
  /** resolves with the first match of `re` in stdout; rejects on timeout or exit */
  waitFor(re: RegExp, ms?: number): Promise<RegExpMatchArray>
  stop(): Promise<void>
}

/** Starts the binary; stdout is drained continuously so the pipe never fills. */
export function runBinary(bin: string, args: string[], o: { cwd?: string; env?: Record<string, string | undefined> } = {}): Running {
  const proc = Bun.spawn([bin, ...args], { cwd: o.cwd, env: o.env ?? process.env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  let text = ''
  let exited = false
  const wake = new Set<() => void>()
  void (async () => {
    const dec = new TextDecoder()
    for await (const chunk of proc.stdout) {
      text += dec.decode(chunk, { stream: true })
      for (const w of wake) w()
    }
  })()
  let errText = ''
  const errRead = new Response(proc.stderr).text().then((t) => {
    errText = t
  })
  void proc.exited.then(() => {
    exited = true
    for (const w of wake) w()
  })
  return {
    proc,
    stdout: () => text,
    stderr: () => errText,
    waitFor(re, ms = 10_000) {
      return new Promise((res, rej) => {
        const check = () => {
          const m = text.match(re)
          if (m) return done(() => res(m))
          if (exited) return done(() => rej(new Error(`exited (${proc.exitCode}) before ${re}; stdout: ${text}`)))
        }
        const timer = setTimeout(() => done(() => rej(new Error(`timed out waiting for ${re}; stdout: ${text}`))), ms)
        const done = (f: () => void) => {
          clearTimeout(timer)
          wake.delete(check)
          f()
        }
        wake.add(check)
        check()
      })
    },
    async stop() {
      if (!exited) proc.kill('SIGTERM')
      await proc.exited
      await errRead
    },
  }
}

/** Runs the binary to completion. */
export async function runOnce(bin: string, args: string[], o: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
  const p = Bun.spawn([bin, ...args], { cwd: o.cwd, env: o.env ?? process.env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { stdout, stderr, code }
}
