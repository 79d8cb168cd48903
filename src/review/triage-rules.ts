/**
 * The path rules triage applies (CONTRACT §15), each from its maintained source:
 *
 * - GitHub Linguist's `vendor.yml` (vendored code) and its generated-file name patterns, vendored
 *   in `linguist-data.ts` with their source and date (never fetched at run time);
 * - the repository's `.gitattributes` of the base commit (`linguist-generated`, `linguist-vendored`,
 *   `-diff`, with their negations), matched as gitattributes(5) says;
 * - lock files and minified files, which Linguist treats as generated.
 */
import { onceUntilRejected } from '../once-until-rejected.js';
import { matchGlobSpecs, type GlobMatchOutcome, type GlobSpec } from '../patterns/glob-match.js';
import { LINGUIST_GENERATED_PATH_PATTERNS, LINGUIST_VENDOR_PATTERNS } from './linguist-data.js';

/**
 * Linguist's path rules, compiled: one regex per entry, case-sensitive as Linguist applies them
 * (`Regexp.new` without `i`; an `i` flag would skip `src/chart.js` or `lib/Dist/x.ts`).
 */
export interface LinguistRules {
  vendored: RegExp[];
  generated: RegExp[];
}

/**
 * Paths a reviewer must see although Linguist lists them for language statistics (CI workflows,
 * git and editor configuration, hand-written type declarations): a Linguist pattern matching any of
 * these is not used for skipping.
 */
export const ALWAYS_REVIEWED_SAMPLES = [
  '.github/workflows/ci.yml',
  '.gitattributes',
  '.gitignore',
  '.gitmodules',
  'Jenkinsfile',
  'Vagrantfile',
  'src/types.d.ts',
  '.vscode/settings.json',
  '.teamcity/settings.kts',
  'gradlew',
  'mvnw',
  'env/settings.py',
  'cache/store.ts',
  'fabfile.py',
];

function compile(patterns: readonly string[]): RegExp[] {
  const out: RegExp[] = [];
  for (const pattern of patterns) {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern);
    } catch {
      continue; // a PCRE-only construct JavaScript cannot compile: not applied
    }
    if (ALWAYS_REVIEWED_SAMPLES.some((sample) => regex.test(sample))) continue;
    out.push(regex);
  }
  return out;
}

/**
 * Compiles Linguist's vendored and generated path patterns (`linguist-data.ts`) once per process.
 * Async and once-only for its callers' sake (the patterns used to be read from a package's files).
 */
export const loadLinguistRules = onceUntilRejected(async (): Promise<LinguistRules> => ({
  vendored: compile(LINGUIST_VENDOR_PATTERNS),
  generated: compile(LINGUIST_GENERATED_PATH_PATTERNS),
}));

/** Lock files by name (package managers' resolved-dependency files). */
const LOCK_FILE =
  /(?:^|\/)(?:[^/]*[.-]lock(?:b|file)?|[^/]*[.-]lock\.(?:json|ya?ml|toml|hcl)|npm-shrinkwrap\.json|Package\.resolved|go\.sum)$/;

/** True for a lock file (`package-lock.json`, `yarn.lock`, `Cargo.lock`, `go.sum`, `bun.lockb`, …). */
export function isLockFile(path: string): boolean {
  return LOCK_FILE.test(path);
}

/** Minified by name (Linguist's `vendor.yml`: `(\.|-)min\.(js|css)$`). */
const MINIFIED_NAME = /[.-]min\.(?:js|css)$/;
/** Extensions Linguist's minified-content check applies to (`['.js', '.css'].include? extname`). */
const MINIFIABLE = /\.(?:js|css)$/;
/** Linguist's threshold: average line length above this means minified. */
const MINIFIED_AVERAGE_LINE = 110;

/** Linguist's minified-file name rule: `*.min.js`, `*-min.css`. Applies to any path. */
export function hasMinifiedName(path: string): boolean {
  return MINIFIED_NAME.test(path);
}

/**
 * Linguist's minified-content rule (`minified_files?`): a `.js` or `.css` file whose lines average
 * over 110 characters. `lines` must be the WHOLE file (triage passes a new file's lines only: the
 * lines a diff shows of an existing file are chosen by the pull request and prove nothing; an
 * existing file is measured in its base version, `hasMinifiedSize`).
 */
export function hasMinifiedContent(path: string, lines: readonly string[]): boolean {
  if (!MINIFIABLE.test(path) || lines.length === 0) return false;
  let chars = 0;
  for (const line of lines) chars += line.length;
  return chars / lines.length > MINIFIED_AVERAGE_LINE;
}

/**
 * Linguist's minified-content rule from a file's size: `bytes` less one newline per line, averaged
 * over `lines` (the BASE version of a file the pull request modifies).
 */
export function hasMinifiedSize(path: string, size: { bytes: number; lines: number }): boolean {
  if (!MINIFIABLE.test(path) || size.lines === 0) return false;
  return (size.bytes - size.lines) / size.lines > MINIFIED_AVERAGE_LINE;
}

/** True for the paths Linguist's minified-content rule looks at (`.js`, `.css`). */
export function isMinifiable(path: string): boolean {
  return MINIFIABLE.test(path);
}

/** One generated-code banner: the lines it may be on (0-based, exclusive end) and its test. */
interface GeneratedBanner {
  from: number;
  to: number;
  test: (line: string) => boolean;
}

const starts = (prefix: string) => (line: string) => line.startsWith(prefix);
const has = (text: string) => (line: string) => line.includes(text);

/**
 * The generator banners GitHub Linguist's `generated.rb` recognises by content, with the lines it
 * looks at, plus Go's convention (`^// Code generated .* DO NOT EDIT\.$`, golang.org/s/generatedcode)
 * and the `@generated` tag (Phabricator/Meta). Case-sensitive, as Linguist matches them: a hand
 * comment such as `// generated by hand` or `DO NOT EDIT` alone is no banner.
 */
const GENERATED_BANNERS: readonly GeneratedBanner[] = [
  { from: 0, to: 40, test: (l) => /^\/\/ Code generated .* DO NOT EDIT\.$/.test(l) },
  { from: 0, to: 5, test: (l) => /(?:^|[\s*/#-])@generated\b/.test(l) },
  { from: 0, to: 1, test: has('Generated by the protocol buffer compiler.  DO NOT EDIT!') },
  { from: 5, to: 6, test: has('GENERATED CODE -- DO NOT EDIT!') },
  { from: 0, to: 6, test: has('Autogenerated by Thrift Compiler') },
  { from: 0, to: 1, test: has('/* DO NOT EDIT THIS FILE - it is machine generated */') },
  { from: 0, to: 1, test: has('Generated by Cython') },
  { from: 0, to: 1, test: starts('// Generated by the gRPC') },
  { from: 0, to: 1, test: starts('// Generated by CoffeeScript') },
  { from: 2, to: 3, test: starts('# This file is automatically generated by Racc') },
  { from: 0, to: 1, test: starts('/* The following code was generated by JFlex ') },
  { from: 0, to: 1, test: starts('// This is a generated file. Not intended for manual editing.') },
  { from: 0, to: 1, test: has('% Generated by roxygen2: do not edit by hand') },
  {
    from: 0,
    to: 1,
    test: (l) => l.startsWith('/* parser generated by jison ') || l.startsWith('/* generated by jison-lex '),
  },
  { from: 0, to: 3, test: (l) => /generated code\W{2,3}do not modify/.test(l.toLowerCase()) }, // Dart
  { from: 1, to: 2, test: has('Automatically created by Devel::PPPort') },
];

/**
 * A fixed string (compared case-insensitively) that every banner of `GENERATED_BANNERS` contains:
 * what a search of base versions looks for before the banners' own tests are applied.
 */
export const BANNER_HINTS: readonly string[] = [
  'Code generated ',
  '@generated',
  'Generated by the protocol buffer compiler',
  'GENERATED CODE -- DO NOT EDIT!',
  'Autogenerated by Thrift Compiler',
  'it is machine generated',
  'Generated by Cython',
  'Generated by the gRPC',
  'Generated by CoffeeScript',
  'automatically generated by Racc',
  'generated by JFlex',
  'This is a generated file',
  'Generated by roxygen2',
  'generated by jison',
  'generated code',
  'Automatically created by Devel::PPPort',
];

/** The last line (1-based) any banner is looked for on. */
export const BANNER_MAX_LINE = Math.max(...GENERATED_BANNERS.map((b) => b.to));

/** True when `line` is a generator banner on some line it may be on (used to see a head remove one). */
export function isBannerLine(line: string): boolean {
  return GENERATED_BANNERS.some((banner) => banner.test(line));
}

/**
 * True when a file's first lines carry a generator banner Linguist (or Go, or `@generated`)
 * recognises. `firstLines` must be the file's own first lines that the pull request cannot forge:
 * those of a file it ADDS, or the BASE version of a file it modifies (a banner the head adds to an
 * existing file must not hide the change). Lines not known may be `''`.
 */
export function hasGeneratedHeader(firstLines: readonly string[]): boolean {
  return GENERATED_BANNERS.some((banner) =>
    firstLines.slice(banner.from, banner.to).some((line) => banner.test(line)),
  );
}

/** What `.gitattributes` says about one path; `undefined` = not set by any line. */
export interface PathAttributes {
  generated?: boolean;
  vendored?: boolean;
  /** `false` for `-diff` (or the `binary` macro): git shows no diff for the file. */
  diff?: boolean;
}

/** One line of `.gitattributes`: its glob (as picomatch takes it) and the attributes it sets. */
export interface AttributeLine {
  spec: GlobSpec;
  attrs: PathAttributes;
}

/** One attribute token: `name`, `-name`, `!name` or `name=value` (gitattributes(5)). */
function applyToken(token: string, attrs: PathAttributes): void {
  const unset = token.startsWith('-');
  const unspecified = token.startsWith('!');
  const body = unset || unspecified ? token.slice(1) : token;
  const [name, value] = body.split('=', 2) as [string, string | undefined];
  const truth = unspecified ? undefined : unset ? false : value === undefined ? true : value !== 'false';
  if (name === 'linguist-generated') attrs.generated = truth;
  else if (name === 'linguist-vendored') attrs.vendored = truth;
  else if (name === 'diff') attrs.diff = truth;
  else if (name === 'binary' && !unset && !unspecified) attrs.diff = false;
}

/**
 * Parses a `.gitattributes` file into its lines. A pattern without `/` matches the base name at any
 * depth; with `/` it is anchored at the root (gitattributes(5)); `**` spans directories; negative
 * patterns (`!x`) are not allowed by git and are ignored, as git ignores them. A pattern ending in
 * `/` matches a directory, and "patterns that match a directory do not recursively match paths
 * inside that directory" (gitattributes(5)): such a line applies to no file, as in git.
 */
export function parseGitattributes(text: string): AttributeLine[] {
  const lines: AttributeLine[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [pattern, ...tokens] = line.split(/\s+/) as [string, ...string[]];
    if (pattern.startsWith('!') || pattern.endsWith('/') || tokens.length === 0) continue;
    const attrs: PathAttributes = {};
    for (const token of tokens) applyToken(token, attrs);
    const anchored = pattern.replace(/^\//, '');
    lines.push({ spec: { pattern: anchored, basename: !pattern.includes('/') }, attrs });
  }
  return lines;
}

/**
 * What `.gitattributes` (`text`) says about each of `paths` (later lines win, as in git). The
 * patterns come from the repository, so they are matched in a worker thread (`matchGlobSpecs`); a
 * line whose pattern cannot be evaluated within `timeoutMs` (or at all) applies to no path and is
 * reported in `outcome.failures` by line index.
 */
export async function gitattributesFor(
  text: string,
  paths: readonly string[],
  timeoutMs: number,
): Promise<{ attributes: Map<string, PathAttributes>; lines: AttributeLine[]; outcome: GlobMatchOutcome }> {
  const lines = parseGitattributes(text);
  const outcome = await matchGlobSpecs(
    lines.map((line) => line.spec),
    paths,
    timeoutMs,
  );
  const attributes = new Map<string, PathAttributes>();
  lines.forEach((line, i) => {
    for (const index of outcome.matches[i] ?? []) {
      const path = paths[index]!;
      const out = attributes.get(path) ?? {};
      for (const key of ['generated', 'vendored', 'diff'] as const) {
        if (key in line.attrs) out[key] = line.attrs[key];
      }
      attributes.set(path, out);
    }
  });
  return { attributes, lines, outcome };
}
