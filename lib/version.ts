import packageJson from "@/package.json";

/** gpudesk's version, the same in the server, the agent and the host bundle (all built from one package.json). */
export const GPUDESK_VERSION: string = packageJson.version;
