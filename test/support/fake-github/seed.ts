/**
 * How tests put data into the fake: repositories, pull requests, and comments or reviews "already
 * on GitHub" (stored as if posted, with the same shapes and ids as posted ones).
 */
import { resolve } from 'node:path';
import type { GitService } from './git-service.js';
import { resolveCommentLocation } from './review-validation.js';
import type { ShapeContext } from './shapes-core.js';
import {
  issueCommentJson,
  pullJson,
  reviewCommentJson,
  reviewJson,
  type GitHubIssueComment,
  type GitHubPullRequest,
  type GitHubReview,
  type GitHubReviewComment,
} from './shapes-pull.js';
import { pullKey, repoKey, type FakeState, type PullRecord, type RepoRecord } from './state.js';
import type { AddPullRequestOptions, SeedIssueComment, SeedReview, SeedReviewComment } from './types.js';

/** Seeding operations bound to one fake. */
export interface Seeder {
  addRepository(owner: string, repo: string, bareRepoPath: string, defaultBranch?: string): RepoRecord;
  addPullRequest(options: AddPullRequestOptions): Promise<GitHubPullRequest>;
  setPullRequestState(owner: string, repo: string, number: number, state: 'open' | 'closed' | 'merged'): void;
  addIssueComment(seed: SeedIssueComment): GitHubIssueComment;
  addReviewComment(seed: SeedReviewComment): Promise<GitHubReviewComment>;
  addReview(seed: SeedReview): GitHubReview;
}

/** Creates the seeder for `state`, linking repositories into `git` and shaping with `shape`. */
export function createSeeder(state: FakeState, git: GitService, shape: ShapeContext): Seeder {
  function pullOf(owner: string, repo: string, number: number): PullRecord {
    const pull = state.pulls.get(pullKey(owner, repo, number));
    if (!pull)
      throw new Error(`fake GitHub: no pull request ${owner}/${repo}#${number}; addPullRequest first`);
    return pull;
  }

  function addRepository(
    owner: string,
    repo: string,
    bareRepoPath: string,
    defaultBranch = 'main',
  ): RepoRecord {
    const key = repoKey(owner, repo);
    const known = state.repos.get(key);
    if (known) return known;
    const record = {
      id: 100 + state.repos.size + 1,
      owner,
      name: repo,
      bareRepoPath: resolve(bareRepoPath),
      defaultBranch,
    };
    state.repos.set(key, record);
    git.link(owner, repo, record.bareRepoPath);
    return record;
  }

  return {
    addRepository,
    async addPullRequest(o) {
      const repo = addRepository(o.owner, o.repo, o.bareRepoPath);
      const headRepo = o.headRepo
        ? addRepository(o.headRepo.owner, o.headRepo.repo, o.headRepo.bareRepoPath)
        : repo;
      const now = state.now();
      const pull: PullRecord = {
        id: state.nextId(),
        number: o.number,
        repo,
        headRepo,
        base: o.base,
        head: o.head,
        title: o.title,
        body: o.body ?? null,
        user: o.user ?? 'octocat',
        state: o.state === 'merged' ? 'closed' : (o.state ?? 'open'),
        merged: o.state === 'merged',
        draft: o.draft ?? false,
        createdAt: now,
        updatedAt: now,
        closedAt: o.state === 'closed' || o.state === 'merged' ? now : null,
        lastHeadSha: '',
      };
      const facts = await git.pullFacts(pull).catch((error: unknown) => {
        throw new Error(
          `fake GitHub: branches ${o.base}/${o.head} not found for ${o.owner}/${o.repo}#${o.number}`,
          {
            cause: error,
          },
        );
      });
      state.pulls.set(pullKey(o.owner, o.repo, o.number), pull);
      return pullJson(shape, pull, facts);
    },
    setPullRequestState(owner, repo, number, next) {
      const pull = pullOf(owner, repo, number);
      pull.state = next === 'open' ? 'open' : 'closed';
      pull.merged = next === 'merged';
      pull.closedAt = next === 'open' ? null : state.now();
      pull.updatedAt = state.now();
    },
    addIssueComment(seed) {
      const now = state.now();
      const pull = pullOf(seed.owner, seed.repo, seed.number);
      const record = {
        id: state.nextId(),
        pull,
        body: seed.body,
        user: seed.user,
        createdAt: now,
        updatedAt: now,
      };
      state.issueComments.push(record);
      return issueCommentJson(shape, record);
    },
    async addReviewComment(seed) {
      const pull = pullOf(seed.owner, seed.repo, seed.number);
      const facts = await git.pullFacts(pull);
      const draft = {
        path: seed.path,
        line: seed.line,
        side: seed.side ?? 'RIGHT',
        start_line: seed.startLine,
      };
      const r = resolveCommentLocation(facts.files, draft);
      if (!r.ok)
        throw new Error(`fake GitHub: cannot seed review comment at ${seed.path}:${seed.line}: ${r.error}`);
      const now = state.now();
      const reviewId = state.nextId();
      const user = seed.user;
      state.reviews.push({
        id: reviewId,
        pull,
        body: '',
        state: 'COMMENTED',
        user,
        commitId: facts.headSha,
        submittedAt: now,
      });
      const record = {
        id: state.nextId(),
        pull,
        reviewId,
        ...r.location,
        body: seed.body,
        user,
        commitId: facts.headSha,
      };
      const full = {
        ...record,
        createdAt: now,
        updatedAt: now,
        ...(seed.inReplyTo ? { inReplyToId: seed.inReplyTo } : {}),
      };
      state.reviewComments.push(full);
      return reviewCommentJson(shape, full);
    },
    addReview(seed) {
      const pull = pullOf(seed.owner, seed.repo, seed.number);
      const now = state.now();
      const record = {
        id: state.nextId(),
        pull,
        body: seed.body,
        state: seed.state ?? 'COMMENTED',
        user: seed.user,
        commitId: pull.lastHeadSha,
        submittedAt: now,
      };
      state.reviews.push(record);
      return reviewJson(shape, record);
    },
  };
}
