/**
 * What a CI run's event means to the reviewbot Action, whatever the forge that runs it (GitHub
 * Actions, Gitea/Forgejo Actions): each platform's `action-event.ts` parses its own payload into it.
 */
import type { z } from 'zod';

/** What the Action makes of its event. */
export type ActionEvent =
  | {
      kind: 'pull_request';
      repoFullName: string;
      prNumber: number;
      /** True when the head branch lives in another repository (or that repository was deleted). */
      isFork: boolean;
      headRepoFullName: string | null;
    }
  | {
      kind: 'comment';
      repoFullName: string;
      prNumber: number;
      authorLogin: string;
      /** The comment author's `author_association` is OWNER, MEMBER or COLLABORATOR. */
      trusted: boolean;
      body: string;
    }
  | { kind: 'ignored'; reason: string };

/** A schema failure of an event payload as one line: `path: message; …` (`(root)` for the top). */
export function describeEventIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}
