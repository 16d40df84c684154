// Every sample file the demo writes out, embedded into the compiled binary
// (with { type: 'file' }: a path on disk under bun, a /$bunfs path when compiled).
// Regenerate after adding a sample: list the files under src/demo/samples.
import f0 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13.jsonl' with { type: 'file' }
import f1 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a40c5c2a9babaf2e6.jsonl' with { type: 'file' }
import f2 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a40c5c2a9babaf2e6.meta.json' with {
  type: 'file',
}
import f3 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a4160e85bd33f35ac.jsonl' with { type: 'file' }
import f4 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a4160e85bd33f35ac.meta.json' with {
  type: 'file',
}
import f5 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a465d2df8f0764ced.jsonl' with { type: 'file' }
import f6 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a465d2df8f0764ced.meta.json' with {
  type: 'file',
}
import f7 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a5dac6f262406d731.jsonl' with { type: 'file' }
import f8 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a5dac6f262406d731.meta.json' with {
  type: 'file',
}
import f9 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-ab787ad1b496b62b0.jsonl' with { type: 'file' }
import f10 from './claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-ab787ad1b496b62b0.meta.json' with {
  type: 'file',
}
import f11 from './claude/projects/-home-me-cc-tools-mix-proj/7444533a-645f-44b8-9f33-73e27f0ddc04.jsonl' with { type: 'file' }
import f12 from './claude/projects/-home-me-cc-tools-mix-proj/7444533a-645f-44b8-9f33-73e27f0ddc04/tool-results/byk59ghqs.txt' with { type: 'file' }
import f13 from './claude/projects/-home-me-cc-working-proj/ae22f811-9570-4ffe-b8a7-5db178f36de1.jsonl' with { type: 'file' }
import f14 from './pi/sessions/--home-me-pi-basic-proj--/2026-12-02T10-04-19-969Z_01a23636-547f-7174-a957-02ede8b4c7f6.jsonl' with { type: 'file' }
import f15 from './screens/cc-subagents/01-agents-running.ansi' with { type: 'file' }
import f16 from './screens/cc-subagents/01-agents-running.recent.txt' with { type: 'file' }
import f17 from './screens/cc-subagents/01-agents-running.txt' with { type: 'file' }
import f18 from './screens/cc-subagents/02-agents-running-b.ansi' with { type: 'file' }
import f19 from './screens/cc-subagents/02-agents-running-b.recent.txt' with { type: 'file' }
import f20 from './screens/cc-subagents/02-agents-running-b.txt' with { type: 'file' }
import f21 from './screens/cc-subagents/03-background-running.ansi' with { type: 'file' }
import f22 from './screens/cc-subagents/03-background-running.recent.txt' with { type: 'file' }
import f23 from './screens/cc-subagents/03-background-running.txt' with { type: 'file' }
import f24 from './screens/cc-subagents/04-background-running-b.ansi' with { type: 'file' }
import f25 from './screens/cc-subagents/04-background-running-b.recent.txt' with { type: 'file' }
import f26 from './screens/cc-subagents/04-background-running-b.txt' with { type: 'file' }
import f27 from './screens/cc-subagents/08-done.ansi' with { type: 'file' }
import f28 from './screens/cc-subagents/08-done.recent.txt' with { type: 'file' }
import f29 from './screens/cc-subagents/08-done.txt' with { type: 'file' }
import f30 from './screens/cc-tools-mix/01-bash-prompt.ansi' with { type: 'file' }
import f31 from './screens/cc-tools-mix/01-bash-prompt.recent.txt' with { type: 'file' }
import f32 from './screens/cc-tools-mix/01-bash-prompt.txt' with { type: 'file' }
import f33 from './screens/cc-tools-mix/03-webfetch-prompt.ansi' with { type: 'file' }
import f34 from './screens/cc-tools-mix/03-webfetch-prompt.recent.txt' with { type: 'file' }
import f35 from './screens/cc-tools-mix/03-webfetch-prompt.txt' with { type: 'file' }
import f36 from './screens/cc-tools-mix/04-after-webfetch.ansi' with { type: 'file' }
import f37 from './screens/cc-tools-mix/04-after-webfetch.recent.txt' with { type: 'file' }
import f38 from './screens/cc-tools-mix/04-after-webfetch.txt' with { type: 'file' }
import f39 from './screens/cc-working/07-done.ansi' with { type: 'file' }
import f40 from './screens/cc-working/07-done.recent.txt' with { type: 'file' }
import f41 from './screens/cc-working/07-done.txt' with { type: 'file' }
import f42 from './screens/pi-basic/04-done.ansi' with { type: 'file' }
import f43 from './screens/pi-basic/04-done.recent.txt' with { type: 'file' }
import f44 from './screens/pi-basic/04-done.txt' with { type: 'file' }

/** [path relative to the demo dir, embedded file] */
export const SAMPLE_FILES: readonly (readonly [string, string])[] = [
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13.jsonl', f0 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a40c5c2a9babaf2e6.jsonl', f1 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a40c5c2a9babaf2e6.meta.json', f2 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a4160e85bd33f35ac.jsonl', f3 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a4160e85bd33f35ac.meta.json', f4 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a465d2df8f0764ced.jsonl', f5 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a465d2df8f0764ced.meta.json', f6 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a5dac6f262406d731.jsonl', f7 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-a5dac6f262406d731.meta.json', f8 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-ab787ad1b496b62b0.jsonl', f9 as unknown as string],
  ['claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13/subagents/agent-ab787ad1b496b62b0.meta.json', f10 as unknown as string],
  ['claude/projects/-home-me-cc-tools-mix-proj/7444533a-645f-44b8-9f33-73e27f0ddc04.jsonl', f11 as unknown as string],
  ['claude/projects/-home-me-cc-tools-mix-proj/7444533a-645f-44b8-9f33-73e27f0ddc04/tool-results/byk59ghqs.txt', f12 as unknown as string],
  ['claude/projects/-home-me-cc-working-proj/ae22f811-9570-4ffe-b8a7-5db178f36de1.jsonl', f13 as unknown as string],
  ['pi/sessions/--home-me-pi-basic-proj--/2026-12-02T10-04-19-969Z_01a23636-547f-7174-a957-02ede8b4c7f6.jsonl', f14 as unknown as string],
  ['screens/cc-subagents/01-agents-running.ansi', f15 as unknown as string],
  ['screens/cc-subagents/01-agents-running.recent.txt', f16 as unknown as string],
  ['screens/cc-subagents/01-agents-running.txt', f17 as unknown as string],
  ['screens/cc-subagents/02-agents-running-b.ansi', f18 as unknown as string],
  ['screens/cc-subagents/02-agents-running-b.recent.txt', f19 as unknown as string],
  ['screens/cc-subagents/02-agents-running-b.txt', f20 as unknown as string],
  ['screens/cc-subagents/03-background-running.ansi', f21 as unknown as string],
  ['screens/cc-subagents/03-background-running.recent.txt', f22 as unknown as string],
  ['screens/cc-subagents/03-background-running.txt', f23 as unknown as string],
  ['screens/cc-subagents/04-background-running-b.ansi', f24 as unknown as string],
  ['screens/cc-subagents/04-background-running-b.recent.txt', f25 as unknown as string],
  ['screens/cc-subagents/04-background-running-b.txt', f26 as unknown as string],
  ['screens/cc-subagents/08-done.ansi', f27 as unknown as string],
  ['screens/cc-subagents/08-done.recent.txt', f28 as unknown as string],
  ['screens/cc-subagents/08-done.txt', f29 as unknown as string],
  ['screens/cc-tools-mix/01-bash-prompt.ansi', f30 as unknown as string],
  ['screens/cc-tools-mix/01-bash-prompt.recent.txt', f31 as unknown as string],
  ['screens/cc-tools-mix/01-bash-prompt.txt', f32 as unknown as string],
  ['screens/cc-tools-mix/03-webfetch-prompt.ansi', f33 as unknown as string],
  ['screens/cc-tools-mix/03-webfetch-prompt.recent.txt', f34 as unknown as string],
  ['screens/cc-tools-mix/03-webfetch-prompt.txt', f35 as unknown as string],
  ['screens/cc-tools-mix/04-after-webfetch.ansi', f36 as unknown as string],
  ['screens/cc-tools-mix/04-after-webfetch.recent.txt', f37 as unknown as string],
  ['screens/cc-tools-mix/04-after-webfetch.txt', f38 as unknown as string],
  ['screens/cc-working/07-done.ansi', f39 as unknown as string],
  ['screens/cc-working/07-done.recent.txt', f40 as unknown as string],
  ['screens/cc-working/07-done.txt', f41 as unknown as string],
  ['screens/pi-basic/04-done.ansi', f42 as unknown as string],
  ['screens/pi-basic/04-done.recent.txt', f43 as unknown as string],
  ['screens/pi-basic/04-done.txt', f44 as unknown as string],
]
