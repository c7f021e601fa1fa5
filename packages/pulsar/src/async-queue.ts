/** A push-to-pull bridge: callbacks push items, a `for await` loop pulls them. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: Error) => void } | undefined;
  private done = false;
  private failure: Error | undefined;

  push(item: T): void {
    if (this.waiter) {
      this.waiter.resolve({ value: item, done: false });
      this.waiter = undefined;
    } else this.items.push(item);
  }

  end(error?: Error): void {
    this.done = true;
    this.failure = error;
    if (this.waiter) {
      if (error) this.waiter.reject(error);
      else this.waiter.resolve({ value: undefined, done: true });
      this.waiter = undefined;
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.done) {
          return this.failure ? Promise.reject(this.failure) : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
      },
    };
  }
}
