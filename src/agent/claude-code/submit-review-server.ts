/**
 * `submit_review` for Claude Code: an in-process MCP server (the SDK's `createSdkMcpServer`) with one
 * tool whose arguments are the agent review output of CONTRACT §7. Claude Code offers it to the
 * model as `mcp__reviewbot__submit_review`; a call of plain `submit_review` is routed to it too.
 * Same lenient schema and sorting as the API runner's tool: a bad finding is folded into the review
 * body with its reason instead of failing the call.
 */
import type { McpServerConfig } from '@anthropic-ai/claude-agent-sdk';
import { SUBMIT_REVIEW_SHAPE } from '../tools/submit-review.js';
import {
  SUBMITTED_ANSWER,
  sortSubmittedReview,
  type LooseSubmitReviewArgs,
} from '../tools/submitted-review.js';
import type { ClaudeAgentSdk } from './sdk-loader.js';

/** Name of the MCP server (the middle part of the tool's Claude Code name). */
export const SUBMIT_SERVER_NAME = 'reviewbot';
/** The tool's name as Claude Code offers it to the model. */
export const SUBMIT_TOOL_FULL_NAME = `mcp__${SUBMIT_SERVER_NAME}__submit_review`;
export { SUBMITTED_ANSWER } from '../tools/submitted-review.js';

/**
 * Creates the MCP server configuration for `query({ options: { mcpServers } })`. `onSubmit`
 * receives the sorted arguments of each call (`sortSubmittedReview`; the runner keeps the last).
 */
export function createSubmitReviewServer(
  sdk: Pick<ClaudeAgentSdk, 'createSdkMcpServer' | 'tool'>,
  onSubmit: (args: unknown) => void,
): McpServerConfig {
  const submit = sdk.tool(
    'submit_review',
    'Submits your review: a summary and inline comments on changed lines. Call it exactly once, ' +
      'when your review is complete.',
    SUBMIT_REVIEW_SHAPE,
    async (args) => {
      onSubmit(sortSubmittedReview(args as LooseSubmitReviewArgs).review);
      return { content: [{ type: 'text', text: SUBMITTED_ANSWER }] };
    },
  );
  return sdk.createSdkMcpServer({
    name: SUBMIT_SERVER_NAME,
    version: '1.0.0',
    tools: [submit],
    alwaysLoad: true,
  });
}
