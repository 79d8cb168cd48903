/**
 * The `reviewbot` command line (CONTRACT §2). Wiring only: each command lives in its own module.
 * Loaded by `index.ts` (the bin) once it has checked the Node.js version.
 */
import { Command, CommanderError, Option } from 'commander';
import { serveHelpText } from './platform-variables.js';
import { REVIEWBOT_VERSION } from './version.js';

// Each command's module is imported when the command runs: a server does not hold the CLI
// review's or the Job pod's dependencies (and their memory) and the other way round.

// The AI SDK prints warnings to stderr by default; our runner logs them through pino instead.
globalThis.AI_SDK_LOG_WARNINGS = false;

const program = new Command()
  .name('reviewbot')
  .description('Self-hosted pull-request review bot')
  .version(REVIEWBOT_VERSION)
  .option('--verbose', 'log JSON lines at level debug on stderr (the same as LOG_LEVEL=debug)')
  .exitOverride()
  .configureOutput({ writeErr: (text) => process.stderr.write(text) })
  // Before any command runs: each command's logger reads LOG_LEVEL (src/logger.ts, cliLogSettings).
  .hook('preAction', (command) => {
    if (command.opts().verbose === true) process.env.LOG_LEVEL ??= 'debug';
  });

program
  .command('review')
  .description(
    "review one pull/merge request and print the result (posts it unless --dry-run), or with --local the current repository's changes",
  )
  // Optional for commander so that a missing ref gets our one-line error naming the form (§2, §17).
  .argument(
    '[ref]',
    'owner/repo#N, group/subgroup/project#N (GitLab), KEY/slug#N (Bitbucket Data Center), or a pull/merge request URL',
  )
  .option('--dry-run', 'print the review without posting it', false)
  .option('--prompt <text>', 'extra instructions for the reviewer')
  .option('--json', 'print the result as one JSON object on stdout (same as --format json)', false)
  .addOption(
    new Option('--platform <name>', 'platform of the reference').choices([
      'github',
      'gitlab',
      'gitea',
      'bitbucket',
      'bitbucket-server',
      'azure-devops',
    ]),
  )
  .option('--config <file>', 'YAML configuration file')
  .option('--local', "review this git repository's committed and uncommitted changes (no platform)", false)
  .option(
    '--base <ref>',
    'with --local: compare with the merge base of this ref (default: origin/HEAD, main, master, origin/main, origin/master)',
  )
  .addOption(
    new Option(
      '--trigger <kind>',
      'lifecycle: behave like a pull request event (on a head the bot already reviewed, run nothing and post nothing); request (default): like a person asking',
    ).choices(['lifecycle', 'request']),
  )
  .addOption(
    new Option(
      '--fail-on <severity>',
      'exit 3 when the verdict counts an open finding at or above this severity (also with --local)',
    ).choices(['P0', 'P1', 'P2', 'P3']),
  )
  .addOption(
    new Option('--format <format>', 'output format (sarif: with --local only)').choices([
      'text',
      'json',
      'sarif',
    ]),
  )
  .action(async (ref: string | undefined, opts: Record<string, unknown>) => {
    const { runReviewCommand } = await import('./review-command.js');
    process.exitCode = await runReviewCommand({
      ...(ref !== undefined ? { ref } : {}),
      dryRun: opts.dryRun === true,
      json: opts.json === true,
      local: opts.local === true,
      ...(typeof opts.base === 'string' ? { base: opts.base } : {}),
      ...(opts.format === 'text' || opts.format === 'json' || opts.format === 'sarif'
        ? { format: opts.format }
        : {}),
      ...(typeof opts.prompt === 'string' ? { prompt: opts.prompt } : {}),
      ...(opts.platform === 'github' ||
      opts.platform === 'gitlab' ||
      opts.platform === 'gitea' ||
      opts.platform === 'bitbucket' ||
      opts.platform === 'bitbucket-server' ||
      opts.platform === 'azure-devops'
        ? { platform: opts.platform }
        : {}),
      ...(typeof opts.config === 'string' ? { config: opts.config } : {}),
      ...(opts.trigger === 'lifecycle' || opts.trigger === 'request' ? { trigger: opts.trigger } : {}),
      ...(opts.failOn === 'P0' || opts.failOn === 'P1' || opts.failOn === 'P2' || opts.failOn === 'P3'
        ? { failOn: opts.failOn }
        : {}),
    });
  });

program
  .command('serve')
  .description('run the webhook server until SIGTERM/SIGINT')
  .option('--config <file>', 'YAML configuration file')
  .addHelpText('after', serveHelpText())
  .action(async (opts: Record<string, unknown>) => {
    const { runServeCommand } = await import('./serve-command.js');
    const code = await runServeCommand(typeof opts.config === 'string' ? { config: opts.config } : {});
    // Keep-alive sockets of API clients must not hold a stopped server open.
    process.exit(code);
  });

program
  .command('run-job')
  .description('cluster Job pod entry point: run one job from REVIEWBOT_JOB_PAYLOAD (or --payload-file)')
  .option('--payload-file <file>', 'read the JobPayload JSON from this file')
  .action(async (opts: Record<string, unknown>) => {
    const { runJobCommand } = await import('./run-job-command.js');
    const code = await runJobCommand(
      typeof opts.payloadFile === 'string' ? { payloadFile: opts.payloadFile } : {},
    );
    process.exit(code);
  });

program
  .command('eval')
  .description(
    'review each pull request of a benchmark dataset without posting, and score the findings against its golden comments',
  )
  .argument(
    '<dataset>',
    'dataset JSON file: {"name", "cases": [{"ref", "platform"?, "golden": [{"path"?, "line"?, "comment", "severity"?}]}]}',
  )
  .option('--json', 'print the scores as one JSON object on stdout', false)
  .option('--out <dir>', "write a Markdown report and each case's findings and matches into this directory")
  .option('--config <file>', 'YAML configuration file')
  .action(async (dataset: string, opts: Record<string, unknown>) => {
    const { runEvalCommand } = await import('./eval-command.js');
    process.exitCode = await runEvalCommand({
      dataset,
      json: opts.json === true,
      ...(typeof opts.out === 'string' ? { out: opts.out } : {}),
      ...(typeof opts.config === 'string' ? { config: opts.config } : {}),
    });
  });

program
  .command('stats')
  .description("what became of the bot's findings in a repository's recently updated pull requests")
  .argument('<target>', '<platform>:<repo>, e.g. github:acme/widgets')
  .option('--since <date>', 'pull requests updated since this date (default: 30 days ago)')
  .option('--json', 'print one JSON object on stdout', false)
  .option('--max-prs <n>', 'read at most this many pull requests (default 200)')
  .option('--config <file>', 'YAML configuration file')
  .action(async (target: string, opts: Record<string, unknown>) => {
    const { runStatsCommand } = await import('./stats-command.js');
    process.exitCode = await runStatsCommand({
      target,
      json: opts.json === true,
      ...(typeof opts.since === 'string' ? { since: opts.since } : {}),
      ...(typeof opts.maxPrs === 'string' ? { maxPrs: opts.maxPrs } : {}),
      ...(typeof opts.config === 'string' ? { config: opts.config } : {}),
    });
  });

const learnings = program
  .command('learnings')
  .description("list, add or remove a repository's learnings (what the team taught the reviewer)");

learnings
  .command('list')
  .description('list the learnings of a repository: id, date, source, author, path, text')
  .argument('<target>', '<platform>:<repo>, e.g. github:acme/widgets')
  .option('--json', 'print one JSON object on stdout', false)
  .option('--config <file>', 'YAML configuration file')
  .action(async (target: string, opts: Record<string, unknown>) => {
    const { runLearningsCommand } = await import('./learnings-command.js');
    process.exitCode = await runLearningsCommand({
      action: 'list',
      target,
      json: opts.json === true,
      ...(typeof opts.config === 'string' ? { config: opts.config } : {}),
    });
  });

learnings
  .command('add')
  .description('add a learning to a repository; prints its id')
  .argument('<target>', '<platform>:<repo>')
  .argument('<text>', 'what the reviewer should know')
  .option('--path <glob>', 'only for files matching this glob')
  .option('--config <file>', 'YAML configuration file')
  .action(async (target: string, text: string, opts: Record<string, unknown>) => {
    const { runLearningsCommand } = await import('./learnings-command.js');
    process.exitCode = await runLearningsCommand({
      action: 'add',
      target,
      text,
      ...(typeof opts.path === 'string' ? { path: opts.path } : {}),
      ...(typeof opts.config === 'string' ? { config: opts.config } : {}),
    });
  });

learnings
  .command('remove')
  .description('remove one learning by id')
  .argument('<target>', '<platform>:<repo>')
  .argument('<id>', 'the learning id (8 hex characters)')
  .option('--config <file>', 'YAML configuration file')
  .action(async (target: string, id: string, opts: Record<string, unknown>) => {
    const { runLearningsCommand } = await import('./learnings-command.js');
    process.exitCode = await runLearningsCommand({
      action: 'remove',
      target,
      id,
      ...(typeof opts.config === 'string' ? { config: opts.config } : {}),
    });
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version exit 0; every other parse error is a usage error (exit 2).
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`reviewbot: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
