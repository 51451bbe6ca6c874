// Next.js alone: this app's production build served from a bare custom server (no socket.io, no
// database, no fleet), the baseline that scripts/bench/server-memory.ts compares `gpudesk serve` with.
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import next from "next";

const port = Number(process.env.PORT);
const app = next({ dev: false, dir: fileURLToPath(new URL("../..", import.meta.url)), hostname: "127.0.0.1", port });
await app.prepare();
const handle = app.getRequestHandler();
createServer((req, res) => void handle(req, res)).listen(port, "127.0.0.1", () => process.stdout.write(`next alone on ${port}\n`));
