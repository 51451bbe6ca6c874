import { findUntypeable, UNTYPEABLE_MESSAGE } from "@/lib/domain/plain-text";
import { AppError } from "@/server/core/errors";

/**
 * Text that no one types (NUL and other control characters,
 * lib/domain/plain-text.ts) is refused wherever a request carries it, with
 * 400 naming the field: the request schemas refuse it field by field, and
 * the API's and sign-in's entries call this on every body, query and path
 * parameter before any of it reaches the database (PostgreSQL cannot store
 * NUL; it answered 500).
 */
export function refuseUntypeable(input: unknown): void {
  const field = findUntypeable(input);
  if (field !== null) throw new AppError("bad_request", `${field === "_" ? "The request" : field}: ${UNTYPEABLE_MESSAGE}`, { [field]: UNTYPEABLE_MESSAGE });
}

/** A query string's parameters, each by its name (a name given twice is checked twice). */
export function refuseUntypeableQuery(params: URLSearchParams): void {
  for (const [name, value] of params) refuseUntypeable({ [name]: value });
}
