/** The fake Gitea's operations, keyed by swagger `operationId`. */
import type { Handler } from './handler-kit.js';
import { commitHandlers } from './handlers-commits.js';
import { listHandlers } from './handlers-list.js';
import { pullHandlers } from './handlers-pulls.js';
import { repoHandlers } from './handlers-repo.js';

export { errorBody, type Answer, type HandlerContext } from './handler-kit.js';

const handlers: Record<string, Handler> = {
  ...pullHandlers,
  ...repoHandlers,
  ...commitHandlers,
  ...listHandlers,
};

/** The handler of `operationId`, if the fake implements it. */
export function handlerFor(operationId: string): Handler | undefined {
  return handlers[operationId];
}
