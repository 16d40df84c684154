// Review what an agent changed (docs/bridge.md "Review changes"): GET /changes,
// GET /changes/diff, GET /files, for the repository holding the pane's working
// directory. Read-only; git runs inert (src/changes/git.ts); only what git shows
// is served, never anything private (src/changes/private.ts), never through a
// symlink (src/changes/open.ts). All three need the `code` scope.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { needs } from '../auth/scopes'
import { changesOf, diffOf } from '../changes/repo'
import { ENTRIES_MAX, RAW_MAX, TEXT_MAX, listEntries, mimeOf, openShown } from '../changes/files'
import { GitError, repoRoot } from '../changes/git'
import { readFd } from '../changes/open'
import { workingBase } from '../changes/shown'
import { closeSync } from 'node:fs'
import type { HerdrClient } from '../herdr/client'
import { paneTargets, plainTextErrors } from './edge'

const Status = t.Union([t.Literal('modified'), t.Literal('added'), t.Literal('deleted'), t.Literal('renamed'), t.Literal('untracked'), t.Literal('conflicted')])

const ChangesSchema = t.Object({
  repo_root: t.String(),
  branch: t.Optional(t.String({ description: 'absent on a detached head' })),
  head: t.Optional(t.String({ description: 'the commit; absent in an empty repository' })),
  upstream: t.Optional(t.String()),
  ahead: t.Integer(),
  behind: t.Integer(),
  files: t.Array(
    t.Object({
      path: t.String(),
      status: Status,
      staged: t.Boolean({ description: 'a file changed both in the index and in the work tree is listed twice' }),
      old_path: t.Optional(t.String()),
      additions: t.Integer(),
      deletions: t.Integer(),
      binary: t.Boolean(),
    }),
  ),
  truncated: t.Boolean({ description: 'more than 2,000 files changed: the first 2,000 are listed' }),
})

const DiffSchema = t.Object({
  path: t.String(),
  old_path: t.Optional(t.String()),
  binary: t.Boolean(),
  hunks: t.Array(
    t.Object({
      header: t.String(),
      lines: t.Array(
        t.Object({
          op: t.Union([t.Literal(' '), t.Literal('+'), t.Literal('-')]),
          old: t.Optional(t.Integer()),
          new: t.Optional(t.Integer()),
          text: t.String(),
        }),
      ),
    }),
  ),
  truncated: t.Boolean({ description: 'the diff passed 1 MiB and was cut' }),
})

const FilesSchema = t.Union([
  t.Object({
    path: t.String(),
    entries: t.Array(
      t.Object({
        name: t.String(),
        type: t.Union([t.Literal('dir'), t.Literal('file'), t.Literal('symlink'), t.Literal('other')], {
          description: '`other`: a FIFO, a socket or a device, listed, never opened',
        }),
        size: t.Integer(),
        mtime: t.String(),
        ignored: t.Optional(t.Literal(true, { description: 'git ignores it: listed, never read' })),
      }),
    ),
    truncated: t.Boolean(),
  }),
  t.Object({ path: t.String(), size: t.Integer(), mime: t.String(), text: t.Optional(t.String()), truncated: t.Boolean() }),
])

/** The pane's working directory: herdr's foreground_cwd, else its cwd. */
async function paneDir(ctx: Ctx, herdr: HerdrClient, pane: string): Promise<string | undefined> {
  const snap = ctx.watch.live() ? ctx.watch.latest() : undefined
  const panes = (snap ?? (await herdr.snapshot())).panes
  const p = panes.find((x) => x.pane_id === pane)
  return p ? (p.foreground_cwd ?? p.cwd) : undefined
}

export function changesRoutes(ctx: Ctx) {
  return new Elysia({ name: 'changes' })
    .use(paneTargets(ctx))
    .get(
      '/changes',
      async ({ status, herdr, target }) => {
        const dir = await paneDir(ctx, herdr, target)
        if (!dir) return status(404, 'no such pane')
        try {
          const c = await changesOf(dir, ctx.privatePlaces)
          return c ?? status(404, 'not a git repository')
        } catch (e) {
          if (e instanceof GitError) return status(502, e.message)
          throw e
        }
      },
      {
        query: t.Object({ pane: t.String({ minLength: 1 }) }, { error: 'want ?pane=<pane_id>' }),
        paneTarget: true,
        response: { 200: ChangesSchema, ...plainTextErrors(400, 401, 403, 404, 502) },
        detail: needs('code', {
          summary: "What changed in the pane's repository: branch, ahead/behind, every changed file with +/− counts",
          description:
            "From git's machine formats (status --porcelain=v2 -z, diff-files and diff-index --numstat -z), run inert: no hooks, pager, external diff, textconv, filters or fsmonitor, no lock taken, the index never written; submodules compared by their recorded commit only. Private paths (the bridge's own directories, credential stores) are left out.",
          tags: ['changes'],
        }),
      },
    )
    .get(
      '/changes/diff',
      async ({ query, status, herdr, target }) => {
        const dir = await paneDir(ctx, herdr, target)
        const root = dir ? await repoRoot(dir) : undefined
        if (!root) return status(404, dir ? 'not a git repository' : 'no such pane')
        try {
          const d = await diffOf(root, query.path, query.staged === '1', ctx.privatePlaces)
          return d ?? status(404, 'no such change')
        } catch (e) {
          if (e instanceof GitError) return status(502, e.message)
          throw e
        }
      },
      {
        query: t.Object(
          {
            pane: t.String({ minLength: 1 }),
            path: t.String({ minLength: 1, maxLength: 4096 }),
            staged: t.Optional(t.Union([t.Literal('0'), t.Literal('1')])),
          },
          { error: 'want ?pane=<pane_id>&path=<path>&staged=0|1' },
        ),
        paneTarget: true,
        response: { 200: DiffSchema, ...plainTextErrors(400, 401, 403, 404, 502) },
        detail: needs('code', {
          summary: "One changed file's diff, as hunks of numbered lines",
          description:
            'Staged: the index against HEAD; not staged: the work tree against the index; an untracked file (not ignored) against nothing. At most 1 MiB of diff (`truncated`), cut at a line boundary. An ignored or private path, or one that cannot be below the top (`..`, absolute, `.git`), is 404.',
          tags: ['changes'],
        }),
      },
    )
    .get(
      '/files',
      async ({ query, status, herdr, target }) => {
        const dir = await paneDir(ctx, herdr, target)
        if (!dir) return status(404, 'no such pane')
        const base = await workingBase(dir, ctx.projects.roots, ctx.homes.home)
        const r = base && (await openShown(base, query.path ?? '', ctx.privatePlaces))
        if (!base || !r) return status(404, 'no such file')
        try {
          if (r.kind === 'dir') return { path: r.rel, ...(await listEntries(r.fd, r.path, base, r.rel, ctx.privatePlaces)) }
          if (query.raw === '1') {
            if (r.size > RAW_MAX) return status(413, `file larger than ${RAW_MAX / 1024 / 1024} MiB`)
            const bytes = readFd(r.fd, RAW_MAX)
            const mime = mimeOf(r.path, bytes.subarray(0, 8000))
            const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" }
            if (mime.startsWith('image/')) headers['content-type'] = mime
            else {
              headers['content-type'] = 'application/octet-stream'
              headers['content-disposition'] = `attachment; filename="${(r.rel.split('/').pop() ?? 'file').replace(/[^\w.-]/g, '_')}"`
            }
            return new Response(bytes, { headers })
          }
          const head = readFd(r.fd, TEXT_MAX)
          const mime = mimeOf(r.path, head.subarray(0, 8000))
          return {
            path: r.rel,
            size: r.size,
            mime,
            ...(mime === 'text/plain' ? { text: head.toString('utf8') } : {}),
            truncated: mime === 'text/plain' && r.size > TEXT_MAX,
          }
        } finally {
          closeSync(r.fd)
        }
      },
      {
        query: t.Object(
          { pane: t.String({ minLength: 1 }), path: t.Optional(t.String({ maxLength: 4096 })), raw: t.Optional(t.Union([t.Literal('0'), t.Literal('1')])) },
          { error: 'want ?pane=<pane_id>&path=<path>&raw=0|1' },
        ),
        paneTarget: true,
        response: {
          200: t.Union([FilesSchema, t.Any()]),
          ...plainTextErrors(400, 401, 403, 404, 413, 502),
        },
        detail: needs('code', {
          summary: 'A directory, a file, or its bytes, inside the repository (or the pane directory outside git)',
          description: `A directory lists its entries (\`.git\` left out, at most ${ENTRIES_MAX}; what git ignores marked \`ignored\`); a file gives its text up to 1 MiB; \`raw=1\` sends the bytes (at most 5 MiB): images as themselves, anything else as a download. Only what git shows is served (tracked files, untracked ones not ignored); outside a repository, only below a pane directory inside a project root that is not the home directory. A path that leaves the base, passes a symlink, goes into .git, is a FIFO, socket or device, or is private (the bridge's own directories, a credential store) is 404.`,
          tags: ['changes'],
        }),
      },
    )
}
