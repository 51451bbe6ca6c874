/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Types are checked by `npm test` (tsc --noEmit over the whole project, tests
  // included); the build on first start skips it to stay well under two minutes.
  typescript: { ignoreBuildErrors: true },
  // Server-only packages with native or WebAssembly parts stay outside the bundle.
  serverExternalPackages: ["better-sqlite3", "@prisma/client", "@prisma/adapter-better-sqlite3", "socket.io"],
};

export default nextConfig;
