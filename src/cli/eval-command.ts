/**
 * `reviewbot eval <dataset.json> [--json] [--out DIR]` (CONTRACT §2, §23): each case is reviewed
 * exactly as `reviewbot review --dry-run` reviews it (`reviewPullRequest`, a full review: memory's
 * incremental mode off), then judged and scored (`src/eval/`). Wiring only.
 * Exit codes: 0 scores printed (failed cases are counted in `errors`); 1 a runtime failure outside
 * the cases; 2 usage, configuration, or a malformed dataset (every problem named).
 */
import { setUpToolSandbox } from '../agent/sandbox/set-up.js';
import type { RawConfig } from '../config/schema.js';
import { loadConfig } from '../config/load-config.js';
import { describeError, ReviewbotError, UsageError } from '../errors.js';
import { loadDataset, type EvalCase, type EvalDataset } from '../eval/dataset.js';
import { judgeMatches } from '../eval/judge.js';
import { formatEvalText, writeEvalReport } from '../eval/report.js';
import { runEval, type CaseReview } from '../eval/run-eval.js';
import { createCliLogger, type Logger } from '../logger.js';
import { reviewLimitsOf } from '../review/limits.js';
import { SecretMasker, secretValues } from '../secrets.js';
import { buildRunner } from './build-runner.js';
import { parsePrRef } from './parse-pr-ref.js';
import { reviewPullRequest } from './review-command.js';

/** Options of `reviewbot eval`. */
export interface EvalCommandOptions {
  dataset: string;
  json: boolean;
  /** `--out DIR`: where the Markdown report and each case's JSON go. */
  out?: string;
  config?: string;
}

/**
 * Every case's ref checked as `reviewbot review` would check it, before anything runs.
 * @throws UsageError naming each bad ref with its case.
 */
export function checkCaseRefs(dataset: EvalDataset, source: string): void {
  const problems: string[] = [];
  for (const [i, c] of dataset.cases.entries()) {
    try {
      parsePrRef(c.ref, c.platform);
    } catch (error) {
      problems.push(`cases[${i}].ref: ${describeError(error)}`);
    }
  }
  if (problems.length > 0)
    throw new UsageError(`malformed dataset ${source}:\n  - ${problems.join('\n  - ')}`);
}

/** The configuration the judge runs with: `eval.judge_model` as the agent's model (default: the review's). */
export function judgeConfig(config: RawConfig): RawConfig {
  const judgeModel = config.eval.judge_model;
  if (judgeModel === undefined || judgeModel === config.agent.model) return config;
  // `agent.pricing` prices the review's model, not another one.
  const { pricing: _reviewModelPricing, ...agent } = config.agent;
  return { ...config, agent: { ...agent, model: judgeModel } };
}

function reviewOf(
  evalCase: EvalCase,
  options: EvalCommandOptions,
  deps: { env: NodeJS.ProcessEnv; logger: Logger; masker: SecretMasker },
): Promise<CaseReview> {
  return reviewPullRequest(
    {
      ref: evalCase.ref,
      dryRun: true,
      json: false,
      ...(evalCase.platform ? { platform: evalCase.platform } : {}),
      ...(options.config ? { config: options.config } : {}),
    },
    // A benchmark scores whole reviews: never only the changes since an earlier review of the bot.
    { ...deps, env: { ...deps.env, REVIEW_INCREMENTAL: 'false' }, onEvent: () => undefined },
  ).then(({ outcome }) => {
    const { result } = outcome;
    const receipt = result.receipt;
    return {
      kept: result.findings,
      rejected: result.rejected,
      model: result.model,
      tokens: receipt
        ? {
            input: receipt.tokens.input + receipt.tokens.cacheRead + receipt.tokens.cacheWrite,
            output: receipt.tokens.output,
          }
        : { input: result.usage.inputTokens, output: result.usage.outputTokens },
      costUsd: receipt ? receipt.costUsd : null,
    };
  });
}

/** Runs `reviewbot eval`; returns the exit code. */
export async function runEvalCommand(
  options: EvalCommandOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const masker = new SecretMasker(secretValues(env));
  const logger = createCliLogger(env, masker);
  const progress = (line: string): void => {
    process.stderr.write(`reviewbot eval: ${masker.mask(line)}\n`);
  };
  try {
    const dataset = await loadDataset(options.dataset);
    checkCaseRefs(dataset, options.dataset);
    const { config } = loadConfig({ ...(options.config ? { configFile: options.config } : {}), env });
    const judged = judgeConfig(config);
    const sandbox = await setUpToolSandbox(judged.agent, logger);
    const judgeRunner = buildRunner(judged, env, masker, logger, { sandbox });
    const { rates } = await reviewLimitsOf(judged);
    const report = await runEval(dataset, {
      reviewCase: (evalCase) => reviewOf(evalCase, options, { env, logger, masker }),
      judge: (findings, golden) => judgeMatches({ runner: judgeRunner, findings, golden, rates }),
      progress,
    });
    // Errors of cases carry provider or platform text: masked like every other output.
    for (const c of report.cases) if (c.error) c.error = masker.mask(c.error);
    if (options.out) progress(`report written to ${await writeEvalReport(options.out, report)}`);
    process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : formatEvalText(report));
    return 0;
  } catch (error) {
    const code = error instanceof ReviewbotError ? error.exitCode : 1;
    process.stderr.write(`reviewbot: ${masker.mask(describeError(error))}\n`);
    if (!(error instanceof ReviewbotError)) logger.error({ err: error }, 'unexpected error');
    return code;
  }
}
