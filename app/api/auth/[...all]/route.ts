import { auth } from "@/server/auth/better-auth";

export const dynamic = "force-dynamic";

// better-auth answers sign-in, sign-out and session requests under /api/auth/*.
// Created on first request, not at build time (it reads the configuration and the database).
export function GET(request: Request) {
  return auth().handler(request);
}

export function POST(request: Request) {
  return auth().handler(request);
}
