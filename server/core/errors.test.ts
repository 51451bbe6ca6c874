import { describe, expect, it, vi } from "vitest";
import { AppError } from "@/server/core/errors";
import { errorResponse } from "@/server/http/api-handler";

describe("AppError across copies of its module", () => {
  it("maps an AppError made by another copy of the module (the custom server's, met in a route's bundle) to its status, not a 500", async () => {
    vi.resetModules();
    const other = await import("@/server/core/errors");
    const { BookingBackendRefusal } = await import("@/server/bookings/backends/booking-backend");
    expect(other.AppError).not.toBe(AppError);
    const away = new other.AppError("slurm_unavailable", "Slurm cannot be reached; nothing was booked");
    const busy = new BookingBackendRefusal("slurm", "Slurm's jobs hold these GPUs", "slurm_busy");
    expect(away instanceof AppError).toBe(true);
    expect(busy instanceof AppError).toBe(true);
    expect(errorResponse(away).status).toBe(503);
    const refused = errorResponse(busy);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ error: { code: "slurm_busy", message: "Slurm's jobs hold these GPUs" } });
  });

  it("keeps the ordinary check for a subclass, and refuses what is no AppError", () => {
    class Other extends AppError {}
    expect(new AppError("conflict", "x") instanceof Other).toBe(false);
    expect(new Other("conflict", "x") instanceof Other).toBe(true);
    expect(new Error("x") instanceof AppError).toBe(false);
    expect((null as unknown as object) instanceof AppError).toBe(false);
  });
});
