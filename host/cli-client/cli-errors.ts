/**
 * Expected failures of the CLI client. `server/cli.ts` prints errors with
 * these names as one line without a stack, so they are told apart by name.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The server answered with an error: its message is what the person sees. */
export class APIError extends Error {
  override name = "APIError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
