/**
 * The copy-paste CI files of docs/ci.md ("Use in CI", "Review before you push"): every GitHub
 * workflow is valid by SchemaStore's workflow schema and asks for the permissions the Action
 * documents, none uses `pull_request_target`, the GitLab include is valid YAML naming the template,
 * the Bitbucket Pipelines block is the shipped step (`ci/bitbucket/bitbucket-pipelines.yml`), and
 * the Azure Pipelines block runs the shipped step template (`ci/azure-devops/azure-pipelines.yml`)
 * from a repository resource in the container the template's header names.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(path.join(ROOT, 'docs', 'ci.md'), 'utf8');

/** The CI page's fenced YAML blocks whose first line is `# <file name>...`. */
function yamlBlocks(prefix: string): Array<{ name: string; text: string }> {
  const blocks: Array<{ name: string; text: string }> = [];
  for (const match of readme.matchAll(/```yaml\n(# (\S+)[^\n]*\n[\s\S]*?)```/g)) {
    if (match[2]!.startsWith(prefix)) blocks.push({ name: match[2]!, text: match[1]! });
  }
  return blocks;
}

const workflows = yamlBlocks('.github/workflows/');
const schema = JSON.parse(
  readFileSync(path.join(ROOT, 'test', 'fixtures', 'github-action', 'github-workflow.schema.json'), 'utf8'),
) as object;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

describe('docs/ci.md CI files', () => {
  it('shows the Action, the fork-safe comment workflow and the SARIF upload', () => {
    expect(workflows.map((w) => w.name)).toEqual([
      '.github/workflows/reviewbot.yml',
      '.github/workflows/reviewbot-comment.yml',
      '.github/workflows/reviewbot-sarif.yml',
    ]);
  });

  it.each(workflows)('$name is a valid workflow with the documented permissions', ({ text }) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a workflow as parsed YAML
    const workflow = parse(text) as Record<string, any>;
    expect(validate(workflow) ? [] : validate.errors).toEqual([]);
    expect(workflow.permissions.contents).toBe('read');
    expect(text).not.toContain('pull_request_target');
    const uses = JSON.stringify(workflow.jobs);
    if (uses.includes('reviewbot/reviewbot@')) expect(workflow.permissions['pull-requests']).toBe('write');
  });

  it.each(workflows)(
    '$name: a pull_request job runs only for pull requests from this repository',
    ({ text }) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a workflow as parsed YAML
      const workflow = parse(text) as Record<string, any>;
      const on = typeof workflow.on === 'string' ? { [workflow.on]: null } : (workflow.on as object);
      if (!('pull_request' in on)) return;
      // A fork's pull_request run gets no secrets: without the guard every fork pull request fails.
      for (const job of Object.values(workflow.jobs as Record<string, { if?: string }>)) {
        expect(job.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
      }
    },
  );

  it('the workflow schema check can fail', () => {
    expect(validate({ on: 'push', jobs: { a: { 'runs-on': 'x', steps: [{ uses: 1 }] } } })).toBe(false);
  });

  it('the GitLab include names the template that exists', () => {
    const [gitlab] = yamlBlocks('.gitlab-ci.yml');
    const config = parse(gitlab!.text) as { include: Array<{ remote: string }> };
    const file = new URL(config.include[0]!.remote).pathname.split('/main/')[1]!;
    expect(file).toBe('ci/gitlab/reviewbot.gitlab-ci.yml');
    expect(existsSync(path.join(ROOT, file))).toBe(true);
  });

  it('the Bitbucket Pipelines block is the shipped step, with a tag to pin', () => {
    const [bitbucket] = yamlBlocks('bitbucket-pipelines.yml');
    type Steps = { definitions: { steps: Array<{ step: { image: string } }> } };
    const shown = parse(bitbucket!.text) as Steps;
    const shipped = parse(
      readFileSync(path.join(ROOT, 'ci', 'bitbucket', 'bitbucket-pipelines.yml'), 'utf8'),
    ) as Steps;
    expect(shown.definitions.steps[0]!.step.image).toBe('ghcr.io/reviewbot/reviewbot:<tag>');
    shown.definitions.steps[0]!.step.image = shipped.definitions.steps[0]!.step.image;
    expect(shown).toEqual(shipped);
  });

  it('the Azure Pipelines block runs the shipped template in a PR build, in the pinned image with the options it names', () => {
    const [azure] = yamlBlocks('azure-pipelines.yml');
    type Pipeline = {
      resources: { repositories: Array<{ repository: string; type: string; name: string; ref: string }> };
      jobs: Array<{
        condition: string;
        container: { image: string; options: string };
        steps: Array<Record<string, string>>;
      }>;
    };
    const pipeline = parse(azure!.text) as Pipeline;
    expect(pipeline.resources.repositories).toEqual([
      expect.objectContaining({ repository: 'reviewbot', type: 'github', name: 'reviewbot/reviewbot' }),
    ]);
    const [job] = pipeline.jobs;
    expect(job!.condition).toBe("eq(variables['Build.Reason'], 'PullRequest')");
    expect(job!.container.image).toBe('ghcr.io/reviewbot/reviewbot:<tag>');
    expect(job!.steps).toEqual([
      { checkout: 'none' },
      { template: 'ci/azure-devops/azure-pipelines.yml@reviewbot' },
    ]);
    const shipped = readFileSync(path.join(ROOT, 'ci', 'azure-devops', 'azure-pipelines.yml'), 'utf8');
    expect(shipped).toContain(`#     options: ${job!.container.options}\n`);
  });
});
