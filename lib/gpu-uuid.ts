/**
 * One spelling per GPU UUID: nvidia-smi writes `GPU-` (or `MIG-`) and lower-case
 * hex, but nothing stops an agent from sending the same UUID in another case.
 * UUIDs compare case-insensitively, so every UUID that crosses a trust boundary
 * is filed under this form: upper-case prefixes, lower-case rest. For what
 * nvidia-smi prints this is the UUID unchanged.
 */
export function canonicalGpuUuid(uuid: string): string {
  return uuid.toLowerCase().replace(/^(?:(?:gpu|mig)-)+/, (prefix) => prefix.toUpperCase());
}
