import { importGraph, findCycles, isTestFile } from "@/scripts/import-graph";
const root = process.cwd();
const edges = importGraph(root);
console.log("file cycles:", findCycles(edges).map((c) => c.join(" -> ")));
const folder = (f: string) => { const parts = f.split("/"); return parts.length > 2 ? `${parts[0]}/${parts[1]}` : f; };
const fe = new Map<string, Set<string>>();
for (const e of edges) {
  if (isTestFile(e.from) || !e.from.startsWith("server/") || !e.to.startsWith("server/")) continue;
  const a = folder(e.from), b = folder(e.to);
  if (a === b) continue;
  const key = `${a} -> ${b}`;
  if (!fe.has(key)) fe.set(key, new Set());
  fe.get(key)!.add(`${e.from} -> ${e.to}`);
}
const fedges = [...fe.keys()].map((k) => { const [from, to] = k.split(" -> "); return { from, to, typeOnly: false }; });
const cycles = findCycles(fedges);
console.log("folder cycles:", cycles.length);
for (const c of cycles) {
  console.log("  ", c.join(" -> "));
  for (let i = 0; i < c.length; i++) { const k = `${c[i]} -> ${c[(i + 1) % c.length]}`; console.log("      ", k, [...(fe.get(k) ?? [])].slice(0, 6).join(" | ")); }
}
// all 2-cycles
const keys = new Set(fe.keys());
for (const k of keys) { const [a, b] = k.split(" -> "); if (a < b && keys.has(`${b} -> ${a}`)) { console.log("PAIR", a, "<->", b); console.log("    ", [...fe.get(k)!].join(" | ")); console.log("    ", [...fe.get(`${b} -> ${a}`)!].join(" | ")); } }
