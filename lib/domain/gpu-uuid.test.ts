import { describe, expect, it } from "vitest";
import { canonicalGpuUuid } from "@/lib/domain/gpu-uuid";

describe("canonicalGpuUuid", () => {
  it.each([
    ["GPU-2b5c0a4f-9e1d-4c1e-8a7b-0d3f6e9a1b2c", "GPU-2b5c0a4f-9e1d-4c1e-8a7b-0d3f6e9a1b2c"],
    ["gpu-2B5C0A4F-9e1d-4c1e-8a7b-0d3f6e9a1b2c", "GPU-2b5c0a4f-9e1d-4c1e-8a7b-0d3f6e9a1b2c"],
    ["GPU-2B5C0A4F-9E1D-4C1E-8A7B-0D3F6E9A1B2C", "GPU-2b5c0a4f-9e1d-4c1e-8a7b-0d3f6e9a1b2c"],
    ["MIG-1f2e3d4c-5b6a-5f4e-9d8c-7b6a5f4e3d2c", "MIG-1f2e3d4c-5b6a-5f4e-9d8c-7b6a5f4e3d2c"],
    // The old MIG form names its GPU after the prefix: both prefixes are upper case.
    ["MIG-GPU-2b5c0a4f-9e1d-4c1e-8a7b-0d3f6e9a1b2c/1/0", "MIG-GPU-2b5c0a4f-9e1d-4c1e-8a7b-0d3f6e9a1b2c/1/0"],
    ["MIG-gpu-2b5c0a4f-9e1d-4c1e-8a7b-0d3f6e9a1b2c/1/0", "MIG-GPU-2b5c0a4f-9e1d-4c1e-8a7b-0d3f6e9a1b2c/1/0"],
    ["GPU-gpu-abc", "GPU-GPU-abc"],
    ["Gpu-abc", "GPU-abc"],
    ["not-a-gpu-ABC", "not-a-gpu-abc"],
  ])("files %s as %s", (input, canonical) => {
    expect(canonicalGpuUuid(input)).toBe(canonical);
    // Canonical is a fixed point: filing it again changes nothing.
    expect(canonicalGpuUuid(canonical)).toBe(canonical);
  });
});
