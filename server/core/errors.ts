/**
 * The one error type of gpudesk's services: a code that callers branch on,
 * a message safe to show, and optional per-field messages for forms.
 */
export type AppErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "gpu_in_use"
  | "quota_exceeded"
  | "rate_limited"
  | "payload_too_large"
  | "database_busy"
  /** A demo person of the simulated fleet has the username or Unix login: ask, then send `takeOverDemo: true`. */
  | "demo_account"
  /** Signed in with a temporary password: only changing it is allowed. */
  | "password_change_required"
  /** A booking backend (server/bookings/backends/) refused the change: nothing of it was stored. */
  | "booking_refused"
  /** Slurm's jobs hold the GPUs a booking on Slurm nodes asks for (the message names them). */
  | "slurm_busy"
  /** Slurm refused a booking's reservation for another reason, or the booking cannot be one. */
  | "slurm_refused"
  /** The booker has no Unix login: a Slurm reservation is made for a Unix user. */
  | "slurm_no_login"
  /** slurmrestd does not answer: bookings on Slurm nodes are refused meanwhile. */
  | "slurm_unavailable";

const STATUS: Record<AppErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gpu_in_use: 409,
  quota_exceeded: 409,
  rate_limited: 429,
  payload_too_large: 413,
  database_busy: 503,
  demo_account: 409,
  password_change_required: 403,
  booking_refused: 409,
  slurm_busy: 409,
  slurm_refused: 409,
  slurm_no_login: 409,
  slurm_unavailable: 503,
};

/** Marks every AppError, whichever copy of this module made it (see `AppError[Symbol.hasInstance]`). */
const APP_ERROR = Symbol.for("gpudesk.app-error");

export class AppError extends Error {
  readonly status: number;
  readonly [APP_ERROR] = true;

  /**
   * `error instanceof AppError` holds for an AppError made by another copy of
   * this module too: the custom server (dist/server) and Next's route bundles
   * each load their own, and a booking backend registered by the server (the
   * Slurm one) throws its refusals into a route's transaction. Without this a
   * 409 slurm_busy or 503 slurm_unavailable went out as a 500. Subclasses keep
   * the ordinary check.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== AppError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as { [APP_ERROR]?: boolean })[APP_ERROR] === true;
  }

  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
    this.status = STATUS[code];
  }

  toJSON() {
    return { error: { code: this.code, message: this.message, ...(this.fields ? { fields: this.fields } : {}) } };
  }
}
