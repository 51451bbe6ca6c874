/**
 * One spelling per GPU UUID: nvidia-smi writes `GPU-` (or `MIG-`) and lower-case
 * hex, but nothing stops an agent from sending the same UUID in another case.
 * UUIDs compare case-insensitively, so every UUID that crosses a trust boundary
 * is filed under this form: upper-case prefixes, lower-case rest. For what
 * nvidia-smi prints this is the UUID unchanged.
 */
/** One upper-case prefix and nothing upper-case after it... */
const ALREADY_CANONICAL = /^(?:GPU|MIG)-[^A-Z]*$/;
/** ...unless a second prefix follows, which the canonical form writes in upper case too. */
const DOUBLE_PREFIX = /^(?:GPU|MIG)-(?:gpu|mig)-/;

export function canonicalGpuUuid(uuid: string): string {
  // What nvidia-smi prints is canonical already: answered without a copy (every GPU of every reading comes here).
  if (ALREADY_CANONICAL.test(uuid) && !DOUBLE_PREFIX.test(uuid)) return uuid;
  return uuid.toLowerCase().replace(/^(?:(?:gpu|mig)-)+/, (prefix) => prefix.toUpperCase());
}
