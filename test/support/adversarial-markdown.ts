/**
 * Comment bodies that made the old mention scan quadratic (security audit, issue 27, defect 1), for
 * tests and `bench:webhook-storm`. Each starts with `prefix` (e.g. `@review-bot please review `)
 * and is padded to exactly `length` UTF-16 code units. The old scan searched, for every backtick
 * run, all later runs of the paragraph for a closer, re-reading the text in between each time.
 */

/** One adversarial body and what it attacks. */
export interface AdversarialBody {
  name: 'backtick runs' | 'unclosed fence runs' | 'quote lines';
  body: string;
}

function padTo(head: string, unit: string, length: number): string {
  const units = Math.max(0, Math.ceil((length - head.length) / unit.length));
  return (head + unit.repeat(units)).slice(0, length);
}

/**
 * The filed body: `prefix`, runs of 2…61 backticks each followed by `x` (60 runs no later run
 * closes), then `` ` `` and a space repeated: every unclosed run scanned to the end of the body.
 */
export function backtickRunsBody(prefix: string, length: number): string {
  let head = prefix;
  for (let k = 2; k <= 61; k++) head += `${'`'.repeat(k)}x`;
  return padTo(head, '` ', length);
}

/**
 * `prefix` on its own line, then lines opening fences of 3…61 backticks that are no fences (their
 * info string holds a backtick, CommonMark), then lines of one backtick: one paragraph of unclosed
 * runs.
 */
export function unclosedFenceRunsBody(prefix: string, length: number): string {
  let head = `${prefix}\n`;
  for (let k = 3; k <= 61; k++) head += `${'`'.repeat(k)}x\`\n`;
  return padTo(head, '`\n', length);
}

/** `prefix` on its own line, then `>` quote lines full of backtick runs and mentions. */
export function quoteLinesBody(prefix: string, length: number): string {
  let head = `${prefix}\n`;
  for (let k = 2; k <= 61; k++) head += `> ${'`'.repeat(k)}x\n`;
  return padTo(head, '> `` ` @x\n', length);
}

/** All three adversarial bodies for `prefix`, each `length` code units long. */
export function adversarialBodies(prefix: string, length: number): AdversarialBody[] {
  return [
    { name: 'backtick runs', body: backtickRunsBody(prefix, length) },
    { name: 'unclosed fence runs', body: unclosedFenceRunsBody(prefix, length) },
    { name: 'quote lines', body: quoteLinesBody(prefix, length) },
  ];
}
