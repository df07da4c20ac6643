/** Resolves on the first SIGINT or SIGTERM: long-running commands (serve, playground) run until then. */
export function untilInterrupted(): Promise<void> {
  return new Promise<void>((resolveStop) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveStop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
