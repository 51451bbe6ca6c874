#!/usr/bin/env node
// gpudesk's command line. The project is TypeScript; tsx compiles it on load,
// with the project's tsconfig wherever the command is started from.
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
await import("../server/cli.ts");
