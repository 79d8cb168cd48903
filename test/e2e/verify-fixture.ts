/**
 * Shared set-up of the end-to-end tests of findings verified by running code: a small JavaScript
 * repository whose pull request brings a real bug (`sum` subtracts), a harmless change a review
 * wrongly calls a crash (`greet`), and a helper a verification probe hangs on (`wait`); and a
 * scripted model that answers the review and each verification run by the request's content — the
 * verification runs really write and run their probes (node) with Bash in the sandbox. Also what
 * every platform's post of the confirmed finding must hold (`expectConfirmedSum`).
 */
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { parseFindingMarker } from '../../src/review/memory/markers.js';
import { decodeProbe } from '../../src/review/verify/probe.js';
import type { RecordedLlmRequest, ScriptedReply } from '../support/fake-llm/index.js';
import { commitToBranch, createBareRepo } from '../support/git-fixtures.js';

const run = promisify(execFile);

/** How a verification run's system prompt starts (how the script tells it from the review's). */
export const VERIFY_SYSTEM = 'You verify one finding of a code review by running code';

/** The base branch's files. */
const BASE_FILES = {
  'README.md': '# calc\n',
  'package.json': '{ "name": "calc", "type": "module", "private": true }\n',
  'src/sum.mjs': 'export const sum = (a, b) => a + b;\n',
  'src/greet.mjs': "export const greet = (name) => 'Hello, ' + name + '!';\n",
};

/** The pull request's files: a real bug in `sum`, a harmless rewrite of `greet`, a new `wait`. */
const HEAD_FILES = {
  'src/sum.mjs': 'export const sum = (a, b) => a - b;\n',
  'src/greet.mjs': 'export const greet = (name) => `Hello, ${name}!`;\n',
  'src/wait.mjs': 'export const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));\n',
};

/** The line the suggestion puts back: it fixes the bug. */
export const SUM_FIX = 'export const sum = (a, b) => a + b;';

/** The probe the verification of the `sum` finding writes: it fails while `sum(2, 2)` is not 4. */
export const PROBE_PATH = 'probe/sum.check.mjs';
export const PROBE_SOURCE = [
  "import { sum } from '../src/sum.mjs';",
  'const got = sum(2, 2);',
  "if (got !== 4) { console.error('sum(2, 2) =', got, 'want 4'); process.exit(1); }",
  "console.log('sum ok');",
  '',
].join('\n');
export const PROBE_COMMAND = `node ${PROBE_PATH}`;
/** What the probe prints on the buggy head. */
export const PROBE_FAILURE = 'sum(2, 2) = 0 want 4';

/** The findings of the scripted review (their texts are how the script recognises a verification run). */
export const FINDINGS = {
  /** A real bug, P1, with a suggestion that fixes it: running code confirms it. */
  sum: {
    path: 'src/sum.mjs',
    line: 1,
    side: 'RIGHT',
    severity: 'P1',
    confidence: 0.9,
    body: '`sum` subtracts its arguments instead of adding them.',
    suggestion: SUM_FIX,
  },
  /** A false claim, P0: running code refutes it. */
  greet: {
    path: 'src/greet.mjs',
    line: 1,
    side: 'RIGHT',
    severity: 'P0',
    confidence: 0.6,
    body: 'GHOST-CLAIM: `greet` throws a TypeError when the name is an empty string.',
  },
  /** P1 on `wait`: its verification's probe sleeps past the time limit. */
  wait: {
    path: 'src/wait.mjs',
    line: 1,
    side: 'RIGHT',
    severity: 'P1',
    confidence: 0.5,
    body: '`wait` never resolves for a negative delay.',
  },
} as const;

/** A bare repository `fullName` under `root` with `main` (base) and `feature` (the pull request). */
export function createVerifyRepo(root: string, fullName: string): string {
  const bare = createBareRepo(root, fullName);
  commitToBranch(bare, { branch: 'main', message: 'base', changes: { write: BASE_FILES } });
  commitToBranch(bare, {
    branch: 'feature',
    from: 'main',
    message: 'feature',
    changes: { write: HEAD_FILES },
  });
  return bare;
}

/** SHA of `ref` in bare repository `bare`. */
export async function revParse(bare: string, ref: string): Promise<string> {
  return (await run('git', [`--git-dir=${bare}`, 'rev-parse', ref])).stdout.trim();
}

/** What the verification runs saw: each Bash result by finding, in order. */
export type BashResults = Record<keyof typeof FINDINGS, string[]>;

/** A scripted model: the review submits `comments`; each verification run follows its finding's plan. */
export interface VerifyScript {
  script: (request: RecordedLlmRequest) => ScriptedReply;
  /** The Bash results the runs received (the probe's real output, from the sandbox). */
  bash: BashResults;
  /** The unique sleep command of the `wait` finding's probe (find it with `ps`). */
  sleepCommand: string;
  /** A word of `sleepCommand` that is on the sleeping process's own command line. */
  sleepArgument: string;
}

/** Which finding a verification run is about (from its prompt). */
function findingOf(request: RecordedLlmRequest): keyof typeof FINDINGS | undefined {
  const prompt = request.messages[0]?.text ?? '';
  return (Object.keys(FINDINGS) as Array<keyof typeof FINDINGS>).find((key) =>
    prompt.includes(FINDINGS[key].body),
  );
}

const submit = (verdict: string, command: string, output: string, explanation: string): ScriptedReply => ({
  toolCalls: [{ name: 'submit_verification', input: { verdict, command, output, explanation } }],
});
const bash = (command: string): ScriptedReply => ({ toolCalls: [{ name: 'Bash', input: { command } }] });

/** Called from the model's side as the runs reach it (the test process; the CLI is waiting for the answer). */
export interface VerifyScriptHooks {
  /** The review's model call: the workspace is prepared, no verification has started. */
  onReview?: () => void;
  /** A verification run's first model call: its disposable tree is open, nothing ran in it yet. */
  onVerificationStart?: (finding: keyof typeof FINDINGS) => void;
}

/**
 * The model: the review's run submits `comments` at once; a verification run of
 * - `sum` writes the probe and runs it (it fails), puts the old line back and runs it again (it
 *   passes), then submits `confirmed` with the first run's real output;
 * - `greet` calls `greet('')` with node, then submits `refuted` with what it printed;
 * - `wait` runs a `sleep` far longer than the time limit (and would submit `confirmed` were it ever
 *   asked again).
 */
export function verifyScript(
  comments: ReadonlyArray<(typeof FINDINGS)[keyof typeof FINDINGS]>,
  hooks: VerifyScriptHooks = {},
): VerifyScript {
  const bashResults: BashResults = { sum: [], greet: [], wait: [] };
  const sleepArgument = `600.${Math.floor(Math.random() * 1e6)}`;
  const sleepCommand = `sleep ${sleepArgument} # reviewbot-verify-e2e-${randomUUID()}`;
  const script = (request: RecordedLlmRequest): ScriptedReply => {
    if (!request.system.includes(VERIFY_SYSTEM)) {
      hooks.onReview?.();
      return {
        toolCalls: [
          {
            name: 'submit_review',
            input: { summary: 'Two changes need a look.', comments: comments.map((c) => ({ ...c })) },
          },
        ],
      };
    }
    const finding = findingOf(request);
    if (finding === undefined) return { text: '{"verdict": "inconclusive"}' };
    // Anthropic: the first user message, then an assistant/user pair per tool turn.
    const turn = ((request.body as { messages: unknown[] }).messages.length - 1) / 2;
    const seen = bashResults[finding];
    if (turn === 0) hooks.onVerificationStart?.(finding);
    if (turn > 0) seen.push(request.toolResults[0]?.content ?? '');
    if (finding === 'sum') {
      if (turn === 0)
        return bash(`mkdir -p probe && cat > ${PROBE_PATH} <<'EOF'\n${PROBE_SOURCE}EOF\n${PROBE_COMMAND}`);
      if (turn === 1) return bash(`printf '%s\\n' '${SUM_FIX}' > src/sum.mjs && ${PROBE_COMMAND}`);
      return submit(
        'confirmed',
        PROBE_COMMAND,
        seen[0] ?? '',
        'The probe fails with the change and passes without it.',
      );
    }
    if (finding === 'greet') {
      const command = `node -e "import('./src/greet.mjs').then((m) => console.log(JSON.stringify(m.greet(''))))"`;
      if (turn === 0) return bash(command);
      return submit('refuted', command, seen[0] ?? '', "greet('') returns a string; nothing throws.");
    }
    if (turn === 0) return bash(sleepCommand);
    return submit('confirmed', sleepCommand, seen[0] ?? '', 'It never came back.');
  };
  return { script, bash: bashResults, sleepCommand, sleepArgument };
}

/** Command lines of the host's processes that contain `needle` (this `ps` excluded). */
export async function processesWith(needle: string): Promise<string[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,args=']);
  return stdout
    .split('\n')
    .filter((line) => line.includes(needle) && !/\bps -eo\b/.test(line))
    .map((line) => line.trim());
}

/** Polls the asynchronous `check` every 100 ms until it resolves true; false after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The receipt line of a review that confirmed one finding and refuted another. */
export const ONE_AND_ONE =
  /^- Verification: 1 confirmed · 1 refuted \(not posted\) · 0 inconclusive · 0 skipped · [\d.]+ s$/m;

/** The marker of an inline comment body, and the probe it carries. */
function markerOf(body: string) {
  const marker = parseFindingMarker(body);
  return { marker, probe: marker?.probe ? decodeProbe(marker.probe) : undefined };
}

/** What the product keeps of a confirmed `sum` finding, whatever the platform. */
export function expectConfirmedSum(body: string) {
  expect(body).toMatch(/^\*\*P1\*\* `sum` subtracts its arguments instead of adding them\./);
  expect(body).toMatch(/<details>\n<summary>Verified by running code<\/summary>\n/);
  expect(body).toContain(`\`\`\`sh\n${PROBE_COMMAND}\n\`\`\``);
  // The output the probe really printed in the sandbox.
  expect(body).toMatch(
    new RegExp(`\`\`\`text\\n[^]*${PROBE_FAILURE.replace(/[()]/g, '\\$&')}[^]*\`\`\`\n\n</details>`),
  );
  expect(body).not.toContain('_Not verified by running code._');
  const { marker, probe } = markerOf(body);
  expect(marker).toMatchObject({ severity: 'P1', side: 'RIGHT' });
  expect(probe).toEqual({ command: PROBE_COMMAND, files: [{ path: PROBE_PATH, content: PROBE_SOURCE }] });
}
