import path from "node:path";
import { importGraph, findCycles, isTestFile } from "@/scripts/import-graph";
const edges = importGraph(process.cwd());
for (const top of ["server/", "host/", "lib/"]) {
  const fe = new Map<string, string[]>();
  for (const e of edges) {
    if (isTestFile(e.from) || !e.from.startsWith(top) || !e.to.startsWith(top)) continue;
    const a = path.posix.dirname(e.from), b = path.posix.dirname(e.to);
    if (a === b) continue;
    const k = `${a} -> ${b}`; (fe.get(k) ?? fe.set(k, []).get(k)!).push(`${e.from} -> ${e.to}`);
  }
  const cycles = findCycles([...fe.keys()].map((k) => { const [from, to] = k.split(" -> "); return { from, to, typeOnly: false }; }));
  console.log(top, "dir cycles:", cycles.length);
  for (const c of cycles) { console.log("  ", c.join(" -> ")); for (let i = 0; i < c.length; i++) { const k = `${c[i]} -> ${c[(i + 1) % c.length]}`; console.log("      ", (fe.get(k) ?? []).slice(0, 4).join(" | ")); } }
}
const hostToServer = edges.filter((e) => !isTestFile(e.from) && e.from.startsWith("host/") && e.to.startsWith("server/"));
console.log("host->server:", hostToServer.map((e) => `${e.from} -> ${e.to}`));
