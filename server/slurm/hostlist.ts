/**
 * Slurm's host lists ("dgx-[01-03,07],gpu-a") to names and back. Slurm
 * answers node lists compressed; gpudesk compares single names.
 */
export function expandHostlist(text: string): string[] {
  const names: string[] = [];
  for (const item of splitTopLevel(text.trim())) {
    const match = /^(.*?)\[([^\]]+)\](.*)$/.exec(item);
    if (!match) {
      if (item) names.push(item);
      continue;
    }
    const [, prefix, ranges, suffix] = match;
    for (const range of ranges.split(",")) {
      const [from, to] = range.split("-");
      if (to === undefined) {
        names.push(...expandHostlist(`${prefix}${from}${suffix}`));
        continue;
      }
      const width = from.length;
      for (let n = Number(from); n <= Number(to); n++) names.push(...expandHostlist(`${prefix}${String(n).padStart(width, "0")}${suffix}`));
    }
  }
  return names;
}

/** Splits on commas outside brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "[") depth++;
    if (char === "]") depth--;
    if (char === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += char;
  }
  if (current) parts.push(current);
  return parts;
}
