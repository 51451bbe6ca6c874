/**
 * The server side of the SQLite contention test (server/core/sqlite-contention.test.ts):
 * real route handlers (token creation, booking, "who am I") over real HTTP,
 * on its own database connection, in a process of its own that the test can
 * kill -9. Prints "listening <url>" and "pid <pid>" when it answers. Run
 * with tsx as a loader, so that this is the process the test kills:
 *   DATABASE_URL=file:… node --import tsx server/testing/write-server.ts
 */
import { serveRoutes } from "@/server/testing/route-server";

async function main() {
  const server = await serveRoutes({
    "POST /api/v1/tokens": (await import("@/app/api/v1/tokens/route")).POST,
    "POST /api/v1/reservations": (await import("@/app/api/v1/reservations/route")).POST,
    "GET /api/v1/me": (await import("@/app/api/v1/me/route")).GET,
  });
  process.stdout.write(`listening ${server.url}\npid ${process.pid}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
