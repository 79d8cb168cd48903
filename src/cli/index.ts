#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.mmap_threshold=65536 node --max-semi-space-size=8
/**
 * The `reviewbot` bin. It checks the Node.js version first, with a module that imports nothing, and
 * only then loads the command line (`program.ts`) and its dependencies: on an old Node.js the user
 * gets one line naming the versions and exit code 1, not a stack trace from inside a dependency.
 *
 * The shebang caps V8's young-generation semi-space at 8 MB: it keeps a server's idle RSS near
 * 100 MB while leaving scavenges rare enough for webhook throughput (`npm run bench:webhook`). It
 * also fixes glibc's mmap threshold at 64 KiB: socket chunks and body buffers then come from (and go
 * back to) the kernel instead of a malloc heap that, after a storm of large webhook bodies, stays
 * at its peak (RSS 10 s after the storm 2.2 × idle without it, 1.1 × with it:
 * `npm run bench:webhook-storm`). The image sets the same variable (Dockerfile).
 */
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`reviewbot: ${problem}\n`);
  process.exit(1);
}
await import('./program.js');
