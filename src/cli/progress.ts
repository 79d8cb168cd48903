/** Human progress lines on stderr for the CLI (clone, diff, each agent turn and tool call, post). */
import type { ReviewEvent } from '../review/execute-review.js';

function brief(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Returns a listener that writes one line per meaningful event to `stream`. */
export function createProgressPrinter(
  stream: NodeJS.WritableStream = process.stderr,
): (event: ReviewEvent) => void {
  const started = Date.now();
  const write = (line: string): void => {
    const t = ((Date.now() - started) / 1000).toFixed(1).padStart(5);
    stream.write(`[${t}s] ${line}\n`);
  };
  return (event) => {
    switch (event.type) {
      case 'phase':
        write(event.message);
        break;
      case 'turn':
        write(`agent turn ${event.turn}/${event.maxTurns}`);
        break;
      case 'tool_call':
        write(`  → ${event.tool} ${brief(event.input)}`);
        break;
      case 'tool_result':
        if (event.isError) write(`  ✗ ${event.tool}: ${brief(event.summary)}`);
        break;
      default:
        break;
    }
  };
}
