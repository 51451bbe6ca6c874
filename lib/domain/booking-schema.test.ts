import { describe, expect, it } from "vitest";
import { issuesToFields, policySchema, bookingChangeSchema, bookingRequestSchema } from "@/lib/domain/booking-schema";

function fieldsOf(input: unknown): Record<string, string> {
  const result = bookingRequestSchema.safeParse(input);
  return result.success ? {} : issuesToFields(result.error);
}

describe("the booking request schema", () => {
  it("accepts named GPUs on a host, or a number of GPUs", () => {
    expect(fieldsOf({ host: "node-a", gpus: [0, 1], durationMinutes: 60, purpose: "train" })).toEqual({});
    expect(fieldsOf({ count: 2, minFreeMemoryMiB: 40000, endsAt: "2026-12-01T14:00:00Z", purpose: "eval" })).toEqual({});
    expect(fieldsOf({ count: 1, startsAt: "2026-12-01T14:00:00+01:00", durationMinutes: 5, purpose: "x" })).toEqual({});
  });

  it("puts each problem on its own field", () => {
    expect(fieldsOf({ gpus: [0], durationMinutes: 60, purpose: "x" })).toEqual({ host: "Choose the host of these GPUs" });
    expect(fieldsOf({ host: "a", gpus: [], durationMinutes: 60, purpose: "x" })).toMatchObject({ gpus: "Choose at least one GPU" });
    expect(fieldsOf({ host: "a", gpus: [1, 1], durationMinutes: 60, purpose: "x" })).toEqual({ gpus: "Choose each GPU only once" });
    expect(fieldsOf({ host: "a", durationMinutes: 60, purpose: "x" })).toEqual({ gpus: "Choose at least one GPU, or ask for a number of GPUs" });
    expect(fieldsOf({ count: 1, purpose: "x" })).toEqual({ durationMinutes: "Choose how long you need the GPUs" });
    expect(fieldsOf({ count: 1, durationMinutes: 60, purpose: "  " })).toEqual({ purpose: "Say what the GPUs are for" });
    expect(fieldsOf({ count: 1, durationMinutes: 60, endsAt: "2026-12-01T14:00:00Z", purpose: "x" })).toEqual({
      endsAt: "Give an end time or a duration, not both",
    });
    expect(fieldsOf({ count: 1, startsAt: "2026-12-01T14:00:00Z", endsAt: "2026-12-01T13:00:00Z", purpose: "x" })).toEqual({
      endsAt: "The end must be after the start",
    });
    expect(fieldsOf({ count: 1, startsAt: "tomorrow", durationMinutes: 60, purpose: "x" })).toHaveProperty("startsAt");
    expect(fieldsOf({ count: 1, startsAt: "2026-12-01T14:00:00", durationMinutes: 60, purpose: "x" })).toHaveProperty("startsAt");
    expect(fieldsOf({ host: "a", gpus: [0], minFreeMemoryMiB: 10, durationMinutes: 60, purpose: "x" })).toHaveProperty("minFreeMemoryMiB");
    expect(fieldsOf({ count: 1, durationMinutes: 60, purpose: "x".repeat(201) })).toEqual({ purpose: "At most 200 characters" });
  });

  it("refuses unknown fields, so that a typo is not silently ignored", () => {
    expect(fieldsOf({ host: "a", gpu: [0], gpus: [0], durationMinutes: 60, purpose: "x" })).toHaveProperty("_");
  });
});

describe("the change and policy schemas", () => {
  it("wants either a new end or minutes to add", () => {
    expect(bookingChangeSchema.safeParse({ addMinutes: 30 }).success).toBe(true);
    expect(bookingChangeSchema.safeParse({ endsAt: "2026-12-01T14:00:00Z", reason: "maintenance" }).success).toBe(true);
    expect(bookingChangeSchema.safeParse({}).success).toBe(false);
    expect(bookingChangeSchema.safeParse({ addMinutes: 0 }).success).toBe(false);
  });

  it("bounds the policy", () => {
    expect(policySchema.safeParse({ maxDurationMinutes: 60, maxGpusPerUser: 4, maxAdvanceDays: 14 }).success).toBe(true);
    expect(policySchema.safeParse({ maxDurationMinutes: 5, maxGpusPerUser: 0, maxAdvanceDays: -1 }).success).toBe(false);
  });
});

describe("the policy schema", () => {
  const base = { maxDurationMinutes: 480, maxGpusPerUser: 4, maxAdvanceDays: 30 };
  it("refuses an idle warning as long as or longer than the idle time before release, at the warning's field", () => {
    const result = policySchema.safeParse({ ...base, idleReleaseAfterMinutes: 6, idleWarningMinutes: 10 });
    expect(result.success).toBe(false);
    expect(issuesToFields(result.error!)).toEqual({
      idleWarningMinutes: "The warning comes before the release: make it shorter than the 6 idle minutes after which a booking is released",
    });
    expect(policySchema.safeParse({ ...base, idleReleaseAfterMinutes: 6, idleWarningMinutes: 6 }).success).toBe(false);
  });

  it("accepts a shorter warning, and any warning while release is off", () => {
    expect(policySchema.safeParse({ ...base, idleReleaseAfterMinutes: 60, idleWarningMinutes: 10 }).success).toBe(true);
    expect(policySchema.safeParse({ ...base, idleReleaseAfterMinutes: 0, idleWarningMinutes: 10 }).success).toBe(true);
  });
});
