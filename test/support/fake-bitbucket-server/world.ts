/** The fake Bitbucket Data Center's state and answer shapes, shared by its handlers. */
import type { AddPullRequest, StoredComment, StoredStatus } from './types.js';

/** What a handler answers. */
export interface Answer {
  status: number;
  body?: unknown;
  text?: string;
}

/** A pull request with its root comments. */
export type PullState = AddPullRequest & {
  comments: StoredComment[];
  /** `OPEN` unless set with `setPullRequestState`. */
  state?: 'OPEN' | 'DECLINED' | 'MERGED';
  /** Epoch ms of creation and of the last state change. */
  createdDate?: number;
  updatedDate?: number;
};

/** Everything the fake holds. */
export interface World {
  url: string;
  pageSize: number;
  username: string;
  pulls: Map<string, PullState>;
  nextCommentId: number;
  statuses: StoredStatus[];
}

/** Data Center's error body. */
export const error = (status: number, message: string): Answer => ({
  status,
  body: { errors: [{ message }] },
});
