/**
 * The configuration schema (CONTRACT §3). Keys are the YAML paths (snake_case); every object is
 * strict, so an unknown key is an error naming it.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { PROVIDER_IDS } from '../agent/providers.js';
import { accessEntryProblem } from './access.js';

/** Lifecycle events that can start a review automatically (`reviewer.triggers`). */
export const TRIGGERS = ['pr_opened', 'pr_push', 'pr_reopened', 'pr_ready_for_review'] as const;

/** Severities of `review.min_severity` and `review.block_on`, most severe first (CONTRACT §21). */
export const SEVERITY_NAMES = ['P0', 'P1', 'P2', 'P3'] as const;

/** Sandbox modes of `agent.sandbox` (CONTRACT §16). */
export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;

/** Default `review.max_diff_tokens`: about a third of a 200k-token context (CONTRACT §15). */
export const DEFAULT_MAX_DIFF_TOKENS = 60_000;
/** Default `review.max_parts` (CONTRACT §15). */
export const DEFAULT_MAX_PARTS = 8;
/** Default `review.max_parallel_runs` (CONTRACT §15). */
export const DEFAULT_MAX_PARALLEL_RUNS = 2;

const nonEmpty = z.string().trim().min(1, 'must not be empty');
/** An `access.allowed_users` / `allowed_repos` entry, optionally tied to a platform (`config/access.ts`). */
const accessEntry = (kind: 'users' | 'repos') =>
  nonEmpty.superRefine((value, ctx) => {
    const problem = accessEntryProblem(value, kind);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
/** A host name (RFC 1123 labels) or an IPv4 address, optionally with `:port`. */
const hostName = z
  .string()
  .trim()
  .regex(
    /^(?=.{1,253}(:|$))([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*(:[0-9]{1,5})?$/,
    'must be a host name, optionally with :port',
  );
const quantity = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/, 'must be a Kubernetes quantity');

/** The YAML document after environment overrides, as validated. */
/**
 * §19: `kubernetes.workspace_claim` is mounted at `workspace.shared_dir`; one without the other
 * means nothing, so each names the other as required.
 */
function checkSharedWorkspace(
  config: {
    workspace: { shared_dir?: string | undefined };
    kubernetes: { workspace_claim?: string | undefined };
  },
  ctx: z.RefinementCtx,
): void {
  const dir = config.workspace.shared_dir;
  const claim = config.kubernetes.workspace_claim;
  if (claim !== undefined && dir === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['workspace', 'shared_dir'],
      message: 'required when kubernetes.workspace_claim is set',
    });
  }
  if (dir !== undefined && claim === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['kubernetes', 'workspace_claim'],
      message: 'required when workspace.shared_dir is set',
    });
  }
}

export const rawConfigSchema = z.strictObject({
  webhook: z
    .strictObject({
      host: nonEmpty.default('0.0.0.0'),
      /** 0: any free port (the "listening" log line names the one bound). */
      port: z.int().min(0).max(65535).default(8080),
      max_concurrent_jobs: z.int().min(1).default(4),
    })
    .prefault({}),
  reviewer: z
    .strictObject({
      bot_username: nonEmpty.optional(),
      triggers: z.array(z.enum(TRIGGERS)).default([]),
    })
    .prefault({}),
  worker: z.strictObject({ bot_username: nonEmpty.optional() }).prefault({}),
  access: z
    .strictObject({
      /** Entries `name` (every platform) or `<platform>:name` (that platform only). */
      allowed_users: z.array(accessEntry('users')).default([]),
      /** Entries `owner/repo` (every platform) or `<platform>:owner/repo` (that platform only). */
      allowed_repos: z.array(accessEntry('repos')).default([]),
    })
    .prefault({}),
  agent: z
    .strictObject({
      provider: z.enum(PROVIDER_IDS).optional(),
      model: nonEmpty.optional(),
      max_turns: z.int().min(1).max(500).default(30),
      base_url: z.url().optional(),
      cli_path: nonEmpty.optional(),
      /** §16: `auto` sandboxes tool subprocesses when bubblewrap works, else WORKER `Bash` is refused. */
      sandbox: z.enum(SANDBOX_MODES).default('auto'),
      /** §16: hosts a sandboxed tool may reach through the allowlisting proxy; `[]` = no network. */
      sandbox_network: z.array(hostName).default([]),
      /**
       * §15: price override for the configured model, USD per million tokens of each kind; unset =
       * the maintained price table (unknown there = `costUsd: null`).
       */
      pricing: z
        .strictObject({
          input_per_mtok: z.number().min(0),
          output_per_mtok: z.number().min(0),
          cache_write_per_mtok: z.number().min(0).optional(),
          cache_read_per_mtok: z.number().min(0).optional(),
        })
        .optional(),
    })
    .prefault({}),
  workspace: z
    .strictObject({
      base_dir: nonEmpty.default(path.join(os.tmpdir(), 'reviewbot-workspaces')),
      cleanup_interval_hours: z.number().min(0).default(6),
      /**
       * §19, cluster mode: where the volume of `kubernetes.workspace_claim` is mounted in every Job
       * pod (an absolute path); the pods' workspaces and object stores live there. Needs the claim.
       */
      shared_dir: nonEmpty.refine((dir) => path.isAbsolute(dir), 'must be an absolute path').optional(),
    })
    .prefault({}),
  kubernetes: z
    .strictObject({
      image: nonEmpty.optional(),
      namespace: nonEmpty.default('default'),
      image_pull_policy: z.enum(['Always', 'Never', 'IfNotPresent']).optional(),
      service_account: nonEmpty.optional(),
      env_from_secrets: z.array(nonEmpty).default([]),
      backoff_limit: z.int().min(0).default(0),
      active_deadline_seconds: z.int().min(1).default(600),
      ttl_after_finished: z.int().min(0).default(3600),
      /**
       * §19: a ReadWriteMany PersistentVolumeClaim mounted at `workspace.shared_dir` in every Job
       * pod; unset = each pod clones into its own emptyDir. Needs `workspace.shared_dir`.
       */
      workspace_claim: z
        .string()
        .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a PersistentVolumeClaim name (RFC 1123 label)')
        .max(253)
        .optional(),
      resources: z
        .strictObject({
          requests: z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() }).prefault({}),
          limits: z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() }).prefault({}),
        })
        .prefault({}),
    })
    .prefault({}),
  review: z
    .strictObject({
      /** §13: review only the changes since the last reviewed head when it is an ancestor. */
      incremental: z.boolean().default(true),
      /** §14: server-wide review instructions; a repository's own rules add to them. */
      instructions: nonEmpty.optional(),
      /** §14/§15: globs of files never shown to the model nor commented on. */
      ignore: z.array(nonEmpty).default([]),
      /** §14: inline findings per review; the rest go to the body. Unset = no limit. */
      max_comments: z.int().min(0).optional(),
      /** §15: estimated diff tokens one agent run may receive (default sized for a 200k-token model). */
      max_diff_tokens: z.int().min(1000).default(DEFAULT_MAX_DIFF_TOKENS),
      /** §15: agent runs (parts) per review at most; hunks beyond are listed as not reviewed. */
      max_parts: z.int().min(1).max(100).default(DEFAULT_MAX_PARTS),
      /** §15: agent runs of one review in flight at once. */
      max_parallel_runs: z.int().min(1).max(32).default(DEFAULT_MAX_PARALLEL_RUNS),
      /** §15: hard cap on one review's cost in USD; unset = no cap. */
      max_cost_usd: z.number().gt(0).optional(),
      /** §18: `status` shows a job's progress next to the head commit; `off` shows nothing. */
      progress: z.enum(['status', 'off']).default('status'),
      /** §21: findings less severe than this are not posted (counted in the receipt). */
      min_severity: z.enum(SEVERITY_NAMES).default('P3'),
      /** §21: `on` posts the verdict as the `reviewbot/verdict` status next to the head commit. */
      gate: z.enum(['off', 'on']).default('off'),
      /** §21: the verdict is blocking when an open finding is at or above this severity. */
      block_on: z.enum(SEVERITY_NAMES).default('P1'),
      /** §22: `on` tests each serious finding by running code in the sandbox before posting. */
      verify: z.enum(['off', 'on']).default('off'),
      /** §22: the least severe finding that is verified. */
      verify_min_severity: z.enum(SEVERITY_NAMES).default('P1'),
      /** §22: findings verified per review at most. */
      verify_max: z.int().min(0).max(50).default(5),
      /** §22: wall-clock limit of one verification run, seconds. */
      verify_timeout_seconds: z.int().min(5).max(3600).default(120),
    })
    .prefault({}),
  eval: z
    .strictObject({
      /** §23: the model that matches findings to golden comments in `reviewbot eval`; unset = `agent.model`. */
      judge_model: nonEmpty.optional(),
    })
    .prefault({}),
  store: z
    .strictObject({
      url: z
        .string()
        .regex(/^rediss?:\/\/[^\s]+$/, 'must be a redis:// or rediss:// URL')
        .optional(),
      key_ttl_seconds: z.int().min(1).default(86400),
    })
    .prefault({}),
});

/** `rawConfigSchema` with the checks across keys (§19's shared workspace pair); what start-up parses. */
export const configSchema = rawConfigSchema.superRefine(checkSharedWorkspace);

/** Validated configuration, snake_case as in YAML. */
export type RawConfig = z.output<typeof rawConfigSchema>;
