import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The project's import graph, read from the source with TypeScript's parser:
 * which file imports which, and whether an import brings only types (erased
 * at build time) or code. scripts/import-graph.test.ts holds the rules it
 * checks: no import cycle (type imports count: a cycle of types is still two
 * files that cannot be understood apart), the server's folders import only
 * down their declared order (SERVER_LAYERS), and components/ reaches server/
 * only for types.
 */

export interface ImportEdge {
  /** Importing and imported file, relative to the root, with "/" separators. */
  from: string;
  to: string;
  /** True when the import brings types only (`import type`, or every name marked `type`). */
  typeOnly: boolean;
}

/** The folders whose files make the application and its tooling (tests included). */
export const SOURCE_DIRS = ["app", "components", "lib", "host", "server", "scripts", "bin", "e2e"];
const EXTENSIONS = [".ts", ".tsx", ".mts", ".js", ".mjs"];
const SKIP_DIRS = new Set(["node_modules", ".next", "fixtures"]);

/** Every source file under the folders, relative to root. */
export function sourceFiles(root: string, dirs: string[] = SOURCE_DIRS): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    if (!existsSync(path.join(root, dir))) return;
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) visit(relative);
      } else if (EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith(".d.ts")) {
        found.push(relative);
      }
    }
  };
  for (const dir of dirs) visit(dir);
  return found.sort();
}

/** The file a specifier names ("@/lib/x", "./x", "../x.ts"), or null for a package or a file that is not there. */
export function resolveSpecifier(root: string, from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith("./") || specifier.startsWith("../")) base = path.posix.join(path.posix.dirname(from), specifier);
  else return null;
  const candidates = [base, ...EXTENSIONS.map((ext) => base + ext), ...EXTENSIONS.map((ext) => `${base}/index${ext}`)];
  for (const candidate of candidates) {
    const full = path.join(root, candidate);
    if (existsSync(full) && statSync(full).isFile()) return candidate;
  }
  return null;
}

/** Whether an import or re-export declaration brings types only. */
function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return Boolean(clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly));
  }
  const clause = node.importClause;
  if (!clause) return false; // import "x": run for its effects
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return Boolean(bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly));
}

/**
 * The imports of one file: static imports and re-exports, and the modules a
 * dynamic `import("…")` or a `require("…")` loads with a literal name. A
 * dynamic import loads later but still ties the two files together: an
 * `import()` that closed a cycle was a cycle the guard did not see.
 */
export function importsOf(root: string, file: string, text: string = readFileSync(path.join(root, file), "utf8")): ImportEdge[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : file.endsWith(".ts") || file.endsWith(".mts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const to = resolveSpecifier(root, file, specifier);
    if (to) edges.push({ from: file, to, typeOnly });
  };
  for (const statement of source.statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier)) add(specifier.text, isTypeOnly(statement));
  }
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const loads = node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require");
      if (loads) add((node.arguments[0] as ts.StringLiteralLike).text, false);
    }
    // `typeof import("…")` in a type: types only.
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) add(node.argument.literal.text, true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** Every edge of the project's graph. */
export function importGraph(root: string, files: string[] = sourceFiles(root)): ImportEdge[] {
  return files.flatMap((file) => importsOf(root, file));
}

/**
 * The import cycles: each strongly connected group of two or more files (or
 * a file importing itself), as one cycle through it, files in import order.
 */
export function findCycles(edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    const list = next.get(edge.from) ?? [];
    if (!list.includes(edge.to)) list.push(edge.to);
    next.set(edge.from, list);
  }
  // Tarjan's strongly connected components, iterative so that a long chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let counter = 0;
  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; child: number }[] = [{ node: start, child: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const children = next.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child++];
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        const selfLoop = group.length === 1 && (next.get(member) ?? []).includes(member);
        if (group.length > 1 || selfLoop) groups.push(group);
      }
    }
  }
  return groups.map((group) => cycleThrough(group, next)).sort((a, b) => a[0].localeCompare(b[0]));
}

/** One cycle inside a strongly connected group, from its first file (by name) back to it: what a reader follows to see it. */
function cycleThrough(group: string[], next: Map<string, string[]>): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0];
  // Breadth-first from start to any file that imports start: the shortest way round.
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const child of next.get(node) ?? []) {
      if (!members.has(child)) continue;
      if (child === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0])!);
        return path;
      }
      if (!cameFrom.has(child) && child !== start) {
        cameFrom.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start];
}

/** Whether a file is a test or a test's helper (they may reach anything: a component's test may start a real server). */
export function isTestFile(file: string): boolean {
  return /\.(test|spec)\.tsx?$/.test(file) || file.startsWith("e2e/");
}

/** The imports by which components/ reaches server/ for more than types: server code in the browser bundle's reach. */
export function componentsImportingServerCode(edges: ImportEdge[]): ImportEdge[] {
  return edges.filter((edge) => edge.from.startsWith("components/") && !isTestFile(edge.from) && edge.to.startsWith("server/") && !edge.typeOnly);
}

/**
 * The cycles between folders under `top` ("server/"): a folder imports
 * another when one of its files (tests aside: they sit beside the code and
 * may start a whole server) imports a file of the other. Every folder counts
 * on its own, nested ones too, so that the tree states which way imports go.
 */
export function folderCycles(edges: ImportEdge[], top: string): string[][] {
  const folderEdges: ImportEdge[] = [];
  const seen = new Set<string>();
  for (const edge of edges) {
    if (isTestFile(edge.from) || !edge.from.startsWith(top) || !edge.to.startsWith(top)) continue;
    const from = path.posix.dirname(edge.from);
    const to = path.posix.dirname(edge.to);
    if (from === to || seen.has(`${from}>${to}`)) continue;
    seen.add(`${from}>${to}`);
    folderEdges.push({ from, to, typeOnly: edge.typeOnly });
  }
  return findCycles(folderEdges);
}

/** Host-side code (the agent and the member CLI, bundled alone for GPU hosts) importing the server's: tests aside. */
export function hostImportingServer(edges: ImportEdge[]): ImportEdge[] {
  return edges.filter((edge) => edge.from.startsWith("host/") && !isTestFile(edge.from) && /^(server|app|components)\//.test(edge.to));
}

/**
 * The layers of server/, lowest first: a folder's files (tests aside) may
 * import its own folder and the folders of lower rows, never a folder of its
 * own row or a higher one. A new folder is declared here before it holds code
 * (docs/development.md draws the same order). "server" is the folder itself:
 * the two entries, index.ts and cli.ts.
 */
export const SERVER_LAYERS: { folders: string[]; holds: string }[] = [
  { folders: ["server/core"], holds: "the platform: db, migrations, env, log, errors, jobs, the event bus" },
  { folders: ["server/access", "server/attribution", "server/downloads", "server/minutes", "server/slurm"], holds: "who acts and what they may (principal, actor, permissions, audit); who runs a process; host bundles; the minute blocks; slurmrestd's client" },
  { folders: ["server/bookings/backends", "server/hosts"], holds: "the booking backends' interface and registry; hosts, their inventory and topology" },
  { folders: ["server/bookings/store"], holds: "the only code that queries Reservation: the transaction, occupancy, conflicts, booking events" },
  { folders: ["server/bookings/slurm"], holds: "the Slurm booking backend: a booking on Slurm nodes is a Slurm reservation" },
  { folders: ["server/auth"], holds: "sessions, tokens, passwords, the sign-in throttle (sso/ is plugged in, never imported)" },
  { folders: ["server/bookings/rules", "server/calendar"], holds: "policy, limits (the per-person cap among them), host rules, teams of bookings, the idle rule, the proof; iCal" },
  { folders: ["server/bookings/placement"], holds: "which units a request gets: GPUs, slices, nodes on one fabric" },
  { folders: ["server/bookings/views"], holds: "bookings as people see them: list, view, across nodes, feed" },
  { folders: ["server/bookings/commands", "server/fleet"], holds: "one book() pipeline (a booking of one part or many, a series), change, end, keep, idle release, replace a part; agents' readings in, fleet state" },
  { folders: ["server/cluster"], holds: "several instances: leader lock, shared jobs" },
  { folders: ["server/tick"], holds: "the once-a-second pipeline, its view and findings" },
  { folders: ["server/enforcement", "server/history", "server/live"], holds: "tick consumers: enforcement, the minute rollups and usage; the /live endpoint" },
  { folders: ["server/alerts", "server/demo", "server/runtime", "server/teams"], holds: "alert rules; the demo's story; the running server's handle; teams and their usage" },
  { folders: ["server/http", "server/metrics", "server/notifications", "server/sso"], holds: "the API wrapper; /metrics; mail, webhooks and notices; single sign-on" },
  { folders: ["server/idle-release", "server/waitlist"], holds: "idle release (a tick consumer); the queue and its grants" },
  { folders: ["server/main"], holds: "the composition of the running server" },
  { folders: ["server", "server/testing"], holds: "the entries (index.ts, cli.ts); the tests' helpers" },
];

/** An import between two folders of server/ against their declared order, or from or to a folder not declared. */
export interface LayerBreach {
  from: string;
  to: string;
  why: string;
}

/**
 * The imports of server/ (tests aside) that run up or across SERVER_LAYERS,
 * each naming the file pair, and the folders of server/ the order does not
 * name (their files listed once, through their first import).
 */
export function layerBreaches(edges: ImportEdge[], layers: { folders: string[] }[] = SERVER_LAYERS): LayerBreach[] {
  const rank = new Map<string, number>();
  layers.forEach((layer, at) => layer.folders.forEach((folder) => rank.set(folder, at)));
  const breaches: LayerBreach[] = [];
  const undeclared = new Set<string>();
  for (const edge of edges) {
    if (isTestFile(edge.from) || !edge.from.startsWith("server/") || !edge.to.startsWith("server/")) continue;
    const from = path.posix.dirname(edge.from);
    const to = path.posix.dirname(edge.to);
    if (from === to) continue;
    for (const folder of [from, to]) {
      if (rank.has(folder) || undeclared.has(folder)) continue;
      undeclared.add(folder);
      breaches.push({ from: edge.from, to: edge.to, why: `${folder}/ is in no layer: declare it in SERVER_LAYERS (scripts/import-graph.ts)` });
    }
    if (!rank.has(from) || !rank.has(to)) continue;
    const up = rank.get(to)! - rank.get(from)!;
    if (up > 0) breaches.push({ from: edge.from, to: edge.to, why: `${from}/ imports ${to}/, ${up} layer${up === 1 ? "" : "s"} above it` });
    else if (up === 0) breaches.push({ from: edge.from, to: edge.to, why: `${from}/ imports ${to}/, beside it in one layer` });
  }
  return breaches;
}

/** Code that only tests and tooling run: tests, their helpers, scripts, the seed. */
function testOrTooling(file: string): boolean {
  return isTestFile(file) || file.startsWith("server/testing/") || file.startsWith("scripts/") || file.startsWith("prisma/");
}

/** A table with one owner: only the owner's files (and tests and tooling) may query it. */
export interface OwnedTable {
  /** The table, as raw SQL names it ("Reservation"). */
  table: string;
  /** Its Prisma model, as the client names it (`db().reservation`). */
  model: string;
  /** Whether a file (not a test or tooling) may query it. */
  owners: (file: string) => boolean;
}

/**
 * The tables with one owner (issue 47): the Reservation table and its
 * units (ReservationGpu) are queried only in their store,
 * server/bookings/store/ (a new booking's rows too: store/insert-booking.ts,
 * written by the one book() pipeline; the units' reads: store/booked-units.ts);
 * the stored minutes (GpuMinuteBlock) only in server/minutes/minute-store.ts;
 * the usage history's pre-summed tiers (issue 52) only in server/history/day-tier.ts,
 * whose SQL fragments (`DAY_SQL`, `MONTH_SQL`, `SLOT_SQL`, `summedWhere`) the sums in gpu-time.ts put together.
 */
const DAY_TIER_OWNER = "server/history/day-tier.ts";
export const OWNED_TABLES: OwnedTable[] = [
  { table: "Reservation", model: "reservation", owners: (file) => file.startsWith("server/bookings/store/") },
  // A booking's units (one row per GPU or slice a part holds, with its range): the booking's own rows, in the same store.
  { table: "ReservationGpu", model: "reservationGpu", owners: (file) => file.startsWith("server/bookings/store/") },
  { table: "GpuMinuteBlock", model: "gpuMinuteBlock", owners: (file) => file === "server/minutes/minute-store.ts" },
  ...(["GpuDay", "GpuDaySummed", "GpuSlot", "GpuMonth", "GpuMonthSummed"] as const).map(
    (table): OwnedTable => ({ table, model: table.charAt(0).toLowerCase() + table.slice(1), owners: (file) => file === DAY_TIER_OWNER }),
  ),
];

/** Whether `file` may query the table: one of its owners, or a test or tooling. */
export function mayQuery(owned: OwnedTable, file: string): boolean {
  return owned.owners(file) || testOrTooling(file);
}

/** Each line of `text` that queries the table: a Prisma call on its model (`tx.reservation.findMany(`, across lines too), or raw SQL naming it. 1-based. */
export function tableQueryLines(text: string, owned: Pick<OwnedTable, "table" | "model">): number[] {
  const query = new RegExp(
    `\\.\\s*${owned.model}\\s*\\.\\s*(?:find\\w*|count|update\\w*|create\\w*|delete\\w*|upsert|aggregate|groupBy)\\s*\\(|\\b(?:FROM|JOIN|UPDATE|INTO)\\s+"${owned.table}"`,
    "g",
  );
  const lines = new Set<number>();
  for (const match of text.matchAll(query)) lines.add(text.slice(0, match.index).split("\n").length);
  return [...lines].sort((a, b) => a - b);
}

/** Every query of an owned table from a file that may not make one, as "Table file:line". */
export function queriesOutsideOwners(root: string, files: string[] = sourceFiles(root, ["app", "components", "lib", "server"]), tables: OwnedTable[] = OWNED_TABLES): string[] {
  return tables.flatMap((owned) =>
    files.filter((file) => !mayQuery(owned, file)).flatMap((file) => tableQueryLines(readFileSync(path.join(root, file), "utf8"), owned).map((line) => `${owned.table} ${file}:${line}`)),
  );
}

/**
 * One word (issue 47): "booking" in code; "reservation" stays only where the interface says
 * it. These are the names a wire answer, a webhook, the CLI's --json, a metric label or an
 * alert's stored evidence carries: a property that crosses a process boundary keeps its name.
 */
export const WIRE_FIELDS_KEPT = new Set([
  "reservation",
  "reservations",
  "reservationId",
  "reservationIds",
  "reservationProven",
  "reservationValue",
  "exportReservation",
  "reservation_id",
]);

/**
 * Where "reservation" may be a name: the REST and page routes' folders (URLs people bookmark
 * and script against), the schema and its migrations, and Slurm's own reservations (a Slurm
 * word: slurmrestd's client, the Slurm booking backend, their fixtures).
 */
export function keepsTheOldWord(file: string): boolean {
  return (
    file.startsWith("app/api/v1/reservations/") ||
    file.startsWith("app/api/v1/usage/reservations/") ||
    file.startsWith("app/reservations/") ||
    file.startsWith("prisma/") ||
    /slurm/i.test(file)
  );
}

/** A name that may say "reservation" anywhere: a wire field, an environment variable, Prisma's compound keys (`reservationId_idleSince`), a Slurm name. */
function oldWordAllowed(name: string, isProperty: boolean): boolean {
  if (/^GPUDESK_[A-Z_]+$/.test(name) || /slurm/i.test(name)) return true;
  return isProperty && (WIRE_FIELDS_KEPT.has(name) || /^reservationId_\w+$/.test(name));
}

/**
 * Each name declared in `text` (a variable, parameter, function, type, property, object key,
 * import alias) that says "reservation" where the one word is "booking", as "file:line name".
 */
export function oldWordNames(file: string, text: string): string[] {
  if (keepsTheOldWord(file) || !/reservation/i.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const name = ts.isImportSpecifier(node) && !node.propertyName ? undefined : (node as ts.NamedDeclaration).name;
    // Quoted keys are values on the wire (audit actions, socket events, REST paths), not names in code.
    if (name && ts.isIdentifier(name) && /reservation/i.test(name.text) && isDeclarationName(node)) {
      const isProperty = ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node) || ts.isMethodDeclaration(node) || ts.isMethodSignature(node);
      if (!oldWordAllowed(name.text, isProperty)) found.push(`${file}:${source.getLineAndCharacterOfPosition(name.getStart(source)).line + 1} ${name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isDeclarationName(node: ts.Node): boolean {
  return (
    ts.isVariableDeclaration(node) ||
    ts.isParameter(node) ||
    ts.isBindingElement(node) ||
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isEnumMember(node) ||
    ts.isPropertySignature(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isPropertyAssignment(node) ||
    ts.isShorthandPropertyAssignment(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isMethodSignature(node) ||
    ts.isImportSpecifier(node) ||
    ts.isImportClause(node) ||
    ts.isNamespaceImport(node)
  );
}

/** Every source file whose path says "reservation" outside the allowed folders, and every such name declared in the others. */
export function oneWordBreaches(root: string, files: string[] = sourceFiles(root), read = (file: string) => readFileSync(path.join(root, file), "utf8")): string[] {
  return files.flatMap((file) => {
    const named = /reservation/i.test(file) && !keepsTheOldWord(file) ? [`${file} (file name)`] : [];
    return [...named, ...oldWordNames(file, read(file))];
  });
}
