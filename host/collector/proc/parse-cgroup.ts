/**
 * Who a process belongs to, as far as its cgroup path tells: the container
 * it runs in and the Slurm job it is part of.
 *
 * Container format (one rule, used everywhere the `container` field is shown):
 * - inside a Kubernetes pod: `pod:<pod-uid>` with the uid in its canonical
 *   dashed form (`kubectl get pod -o jsonpath='{.metadata.uid}'`). The pod,
 *   not the container, because the pod outlives container restarts and is
 *   what people look up.
 * - any other container (Docker, Podman, containerd/CRI-O outside a pod):
 *   the first 12 hex digits of the container id, as `docker ps` and
 *   `podman ps` print it.
 * - anything else (user sessions, system services): null.
 */

export interface CgroupOwnership {
  container: string | null;
  slurmJobId: string | null;
}

const SHORT_ID_LENGTH = 12;

// A pod uid is a UUID; the systemd cgroup driver writes its dashes as
// underscores. Static (mirror) pods use a 32-hex config hash instead.
const POD_UID = /^(?:[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}|[0-9a-f]{32})$/;
// `pod<uid>` (cgroupfs driver) or `kubepods-<qos>-pod<uid>.slice` (systemd driver).
const POD_SEGMENT = /(?:^|-)pod([0-9a-f_-]+?)(?:\.slice)?$/;

// Container ids are 64 hex digits in every runtime listed here. The
// `conmon-` scopes hold Podman's/CRI-O's monitor process, not the container.
const CONTAINER_SEGMENTS: RegExp[] = [
  /^docker-([0-9a-f]{64})\.scope$/,
  /^cri-containerd-([0-9a-f]{64})\.scope$/,
  /^crio-([0-9a-f]{64})\.scope$/,
  /^libpod-([0-9a-f]{64})(?:\.scope)?$/,
];
// Bare ids: `/docker/<id>` (cgroupfs driver) and `/kubepods/.../pod<uid>/<id>`.
const BARE_ID = /^[0-9a-f]{64}$/;

// `slurm` (v1), `slurm_<node>` (several slurmd on one host), or
// `slurmstepd.scope` (v2), followed somewhere below by `job_<id>`.
const SLURM_JOB = /(?:^|\/)(?:slurm|slurm_[^/]+|slurmstepd\.scope)\/(?:[^/]+\/)*?job_(\d{1,20})(?:\/|$)/;

/**
 * Parses /proc/<pid>/cgroup in either format: v1 has one line per
 * hierarchy (`4:memory:/docker/<id>`), v2 a single `0::/path` line, hybrid
 * systems both. The first line that yields an answer wins, per field.
 */
export function parseCgroup(text: string): CgroupOwnership {
  let container: string | null = null;
  let slurmJobId: string | null = null;
  for (const line of text.split("\n")) {
    const path = cgroupPath(line);
    if (path === null) continue;
    container ??= containerFromPath(path);
    slurmJobId ??= SLURM_JOB.exec(path)?.[1] ?? null;
    if (container !== null && slurmJobId !== null) break;
  }
  return { container, slurmJobId };
}

/** The path part of `hierarchy-id:controllers:path`; the path may contain ":". */
function cgroupPath(line: string): string | null {
  const first = line.indexOf(":");
  const second = first < 0 ? -1 : line.indexOf(":", first + 1);
  if (second < 0) return null;
  const path = line.slice(second + 1).trim();
  return path.startsWith("/") ? path : null;
}

export function containerFromPath(path: string): string | null {
  const segments = path.split("/").filter((s) => s !== "");
  // Kubernetes first: a pod's containers also match the runtime patterns
  // below, and nested setups (kind, Docker-in-Docker) put kubepods under a
  // docker path, where the pod is the more specific answer.
  if (segments.some((s) => s.includes("kubepods"))) {
    for (const segment of segments) {
      const uid = POD_SEGMENT.exec(segment)?.[1];
      if (uid !== undefined && POD_UID.test(uid)) return `pod:${uid.replaceAll("_", "-")}`;
    }
  }
  // The innermost container is the one the process runs in, so search from
  // the leaf upwards.
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    for (const pattern of CONTAINER_SEGMENTS) {
      const id = pattern.exec(segment)?.[1];
      if (id !== undefined) return id.slice(0, SHORT_ID_LENGTH);
    }
    if (BARE_ID.test(segment) && isBareIdParent(segments[i - 1])) {
      return segment.slice(0, SHORT_ID_LENGTH);
    }
  }
  return null;
}

// A bare 64-hex segment is only a container id under a runtime's or a pod's
// directory; elsewhere (e.g. a sandbox's own cgroup names) it is not ours to
// interpret.
function isBareIdParent(parent: string | undefined): boolean {
  if (parent === undefined) return false;
  return parent === "docker" || parent === "libpod_parent" || /^pod[0-9a-f_-]+$/.test(parent);
}
