/**
 * The `.reviewbot.yaml` schema (CONTRACT §14), in the server configuration's style: zod strict
 * objects, so an unknown or mistyped key is named. Only the keys a repository may set are here; the
 * budget and `agent.*` keys belong to whoever runs reviewbot (§3).
 */
import { z } from 'zod';

const text = z.string().trim().min(1, 'must not be empty');

/** One `review.path_instructions` entry: a picomatch glob and the instructions for matching files. */
export const PathInstruction = z.strictObject({ path: text, instructions: text });
export type PathInstruction = z.infer<typeof PathInstruction>;

/** The whole file. Every key is optional; an empty file is valid. */
export const RepoRulesFile = z
  .strictObject({
    review: z
      .strictObject({
        instructions: text.optional(),
        path_instructions: z.array(PathInstruction).optional(),
        ignore: z.array(text).optional(),
        max_comments: z.int().min(0).optional(),
        incremental: z.boolean().optional(),
        min_severity: z.enum(['P0', 'P1', 'P2', 'P3']).optional(),
        block_on: z.enum(['P0', 'P1', 'P2', 'P3']).optional(),
      })
      .optional(),
  })
  .nullable();
export type RepoRulesFile = z.infer<typeof RepoRulesFile>;
