/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Types are checked by `npm test` (tsc --noEmit over the whole project, tests
  // included); the build on first start skips it to stay well under two minutes.
  typescript: { ignoreBuildErrors: true },
  // Server-only packages with native or WebAssembly parts stay outside the bundle. So do
  // better-auth and zod: bundled, each route group's server chunks carried a copy of better-auth
  // (seven copies of some 450 KiB loaded at start, each with its own instances), beside the one
  // the custom server loads from node_modules; external, every route and the custom server share
  // that one (docs/benchmark.md, "Server memory"). @prisma/adapter-pg is loaded only for PostgreSQL.
  serverExternalPackages: ["better-sqlite3", "@prisma/client", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "socket.io", "better-auth", "zod"],
};

export default nextConfig;
