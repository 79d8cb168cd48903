/**
 * The configuration schema (CONTRACT §3). Keys are the YAML paths (snake_case); every object is
 * strict, so an unknown key is an error naming it.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { PROVIDER_IDS } from '../agent/providers.js';

/** Lifecycle events that can start a review automatically (`reviewer.triggers`). */
export const TRIGGERS = ['pr_opened', 'pr_push', 'pr_reopened', 'pr_ready_for_review'] as const;

const nonEmpty = z.string().trim().min(1, 'must not be empty');
const quantity = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/, 'must be a Kubernetes quantity');

/** The YAML document after environment overrides, as validated. */
export const rawConfigSchema = z.strictObject({
  webhook: z
    .strictObject({
      host: nonEmpty.default('0.0.0.0'),
      port: z.int().min(1).max(65535).default(8080),
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
      allowed_users: z.array(nonEmpty).default([]),
      allowed_repos: z.array(nonEmpty.regex(/^[^/\s]+(\/[^/\s]+)+$/, 'must be <owner>/<repo>')).default([]),
    })
    .prefault({}),
  agent: z
    .strictObject({
      provider: z.enum(PROVIDER_IDS).optional(),
      model: nonEmpty.optional(),
      max_turns: z.int().min(1).max(500).default(30),
      base_url: z.url().optional(),
      cli_path: nonEmpty.optional(),
    })
    .prefault({}),
  workspace: z
    .strictObject({
      base_dir: nonEmpty.default(path.join(os.tmpdir(), 'reviewbot-workspaces')),
      cleanup_interval_hours: z.number().min(0).default(6),
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
      resources: z
        .strictObject({
          requests: z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() }).prefault({}),
          limits: z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() }).prefault({}),
        })
        .prefault({}),
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

/** Validated configuration, snake_case as in YAML. */
export type RawConfig = z.output<typeof rawConfigSchema>;
