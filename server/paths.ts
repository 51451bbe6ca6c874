import path from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout (or installed package) root: where package.json, app/ and prisma/ are. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
