/**
 * Reading award emoji on GitLab merge request notes (CONTRACT §20 dismissals):
 * `GET /projects/:id/merge_requests/:iid/notes/:note_id/award_emoji` (award_emoji.md; all pages).
 * Names are mapped to GitHub's reaction vocabulary: `thumbsdown` → `-1`, `thumbsup` → `+1`.
 */
import { z } from 'zod';
import type { CommentReaction, Platform } from '../types.js';
import type { GitLabClient } from './client.js';
import type { GitLabCall } from './memory-api.js';

const AwardEmoji = z.object({ name: z.string(), user: z.object({ username: z.string() }) });

const TO_GITHUB: Record<string, string> = { thumbsdown: '-1', thumbsup: '+1' };

/** The `listReactions` method of the GitLab platform. */
export function gitLabReactionMethods(
  client: GitLabClient,
  call: GitLabCall,
): Required<Pick<Platform, 'listReactions'>> {
  return {
    async listReactions(target) {
      const { repoFullName: project, prNumber: iid, commentId } = target;
      const awards = await call(`list the award emoji of note ${commentId} on ${project}!${iid}`, () =>
        client.noteAwardEmojis.all(project, iid, Number(commentId), { perPage: 100 }),
      );
      return AwardEmoji.array()
        .parse(awards)
        .map((a): CommentReaction => ({ content: TO_GITHUB[a.name] ?? a.name, username: a.user.username }));
    },
  };
}
