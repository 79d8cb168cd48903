/**
 * One run's tool calls never overlap a Bash call: a file tool checks a path and then uses it, so no
 * process of the agent may run in between (CONTRACT §8, §16). Bash holds the lock alone; Read,
 * Glob, Grep, Write and Edit share it. Waiters are served in arrival order, so neither kind starves.
 */

/** A readers-writer lock for the tool calls of one run. */
export class ToolCallLock {
  private shared = 0;
  private exclusive = false;
  private readonly waiting: { exclusive: boolean; enter: () => void }[] = [];

  /** Runs `body` holding the lock: alone when `exclusive`, else beside other shared holders. */
  async run<T>(exclusive: boolean, body: () => Promise<T>): Promise<T> {
    await this.acquire(exclusive);
    try {
      return await body();
    } finally {
      if (exclusive) this.exclusive = false;
      else this.shared--;
      this.admit();
    }
  }

  private fits(exclusive: boolean): boolean {
    return exclusive ? !this.exclusive && this.shared === 0 : !this.exclusive;
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusive = true;
    else this.shared++;
  }

  private acquire(exclusive: boolean): Promise<void> {
    if (this.waiting.length === 0 && this.fits(exclusive)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push({ exclusive, enter: resolve }));
  }

  private admit(): void {
    for (let next = this.waiting[0]; next && this.fits(next.exclusive); next = this.waiting[0]) {
      this.waiting.shift();
      this.take(next.exclusive);
      next.enter();
    }
  }
}
