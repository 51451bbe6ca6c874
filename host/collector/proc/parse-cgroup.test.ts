import { describe, expect, it } from "vitest";
import { parseCgroup } from "@/host/collector/proc/parse-cgroup";

const ID = "3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7080";
const SHORT = ID.slice(0, 12);
const POD = "8f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f";
const POD_SYSTEMD = POD.replaceAll("-", "_");

/** A cgroup v1 file: one line per hierarchy, all pointing at `path`. */
function v1(path: string): string {
  return [
    `12:pids:${path}`,
    `11:memory:${path}`,
    `4:cpu,cpuacct:${path}`,
    `1:name=systemd:${path}`,
    "0::/",
    "",
  ].join("\n");
}
const v2 = (path: string) => `0::${path}\n`;

describe("parseCgroup", () => {
  it.each([
    ["Docker, v1 cgroupfs", v1(`/docker/${ID}`), SHORT],
    ["Docker, v2 cgroupfs", v2(`/docker/${ID}`), SHORT],
    ["Docker, v2 systemd", v2(`/system.slice/docker-${ID}.scope`), SHORT],
    ["Docker, v1 systemd", v1(`/system.slice/docker-${ID}.scope`), SHORT],
    ["Kubernetes, v1 cgroupfs", v1(`/kubepods/burstable/pod${POD}/${ID}`), `pod:${POD}`],
    ["Kubernetes, v2 cgroupfs, guaranteed QoS", v2(`/kubepods/pod${POD}/${ID}`), `pod:${POD}`],
    [
      "Kubernetes, v2 systemd, containerd",
      v2(`/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD_SYSTEMD}.slice/cri-containerd-${ID}.scope`),
      `pod:${POD}`,
    ],
    [
      "Kubernetes, v1 systemd, CRI-O",
      v1(`/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${POD_SYSTEMD}.slice/crio-${ID}.scope`),
      `pod:${POD}`,
    ],
    [
      "Kubernetes guaranteed QoS, systemd",
      v2(`/kubepods.slice/kubepods-pod${POD_SYSTEMD}.slice/cri-containerd-${ID}.scope`),
      `pod:${POD}`,
    ],
    ["kind node: kubepods under a docker container", v2(`/docker/${"a".repeat(64)}/kubepods/besteffort/pod${POD}/${ID}`), `pod:${POD}`],
    ["static pod with a 32-hex uid", v2(`/kubepods/burstable/pod${"c".repeat(32)}/${ID}`), `pod:${"c".repeat(32)}`],
    ["containerd scope outside a pod", v2(`/system.slice/cri-containerd-${ID}.scope`), SHORT],
    ["Podman rootless, v2", v2(`/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-${ID}.scope/container`), SHORT],
    ["Podman cgroupfs manager, v1", v1(`/libpod_parent/libpod-${ID}`), SHORT],
    ["Podman's conmon is not the container", v2(`/machine.slice/libpod-conmon-${ID}.scope`), null],
    ["plain user session, v2", v2("/user.slice/user-1000.slice/session-4.scope"), null],
    ["plain user session, v1", v1("/user.slice/user-1000.slice/session-4.scope"), null],
    ["system service", v2("/system.slice/nvidia-persistenced.service"), null],
    ["bare 64-hex outside a runtime directory", v2(`/process_api/${ID}`), null],
    ["root cgroup", "0::/\n", null],
  ])("container: %s", (_name, text, expected) => {
    expect(parseCgroup(text).container).toBe(expected);
  });

  it.each([
    ["v1", v1("/slurm/uid_1000/job_12345/step_0/task_0"), "12345"],
    ["v1, batch step", v1("/slurm/uid_1000/job_12345/step_batch"), "12345"],
    ["v1, several slurmd per host", v1("/slurm_node07/uid_1000/job_777/step_0"), "777"],
    ["v2", v2("/system.slice/slurmstepd.scope/job_12345/step_0/user/task_0"), "12345"],
    ["v2 without systemd", v2("/slurmstepd.scope/job_42/step_extern/slurm"), "42"],
    ["job_ outside slurm", v2("/user.slice/job_999.scope"), null],
    ["plain session", v2("/user.slice/user-1000.slice/session-4.scope"), null],
  ])("slurmJobId: %s", (_name, text, expected) => {
    expect(parseCgroup(text).slurmJobId).toBe(expected);
  });

  it("reads the first hierarchy that answers on a hybrid v1/v2 host", () => {
    const text = [
      `11:memory:/docker/${ID}`,
      "1:name=systemd:/system.slice/docker.service",
      "0::/system.slice/docker.service",
      "",
    ].join("\n");
    expect(parseCgroup(text)).toEqual({ container: SHORT, slurmJobId: null });
  });

  it("ignores malformed lines and keeps paths that contain colons", () => {
    expect(parseCgroup(`garbage\n\n0::/docker/${ID}\n`).container).toBe(SHORT);
    expect(parseCgroup("0::/odd:name/x\n")).toEqual({ container: null, slurmJobId: null });
  });
});
