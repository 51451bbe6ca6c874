import { describe, expect, it } from "vitest";
import { launchSettings } from "@/lib/domain/launch-settings";

const gpus = [
  { index: 3, uuid: "GPU-dddd" },
  { index: 2, uuid: "GPU-cccc" },
];

describe("launch settings", () => {
  it("lists nvidia-smi indices in order, with the PCI bus order that makes them mean the same GPUs", () => {
    const launch = launchSettings(gpus, "res1.proof");
    expect(launch.cudaVisibleDevices).toBe("2,3");
    expect(launch.exportIndices).toBe("export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3");
    expect(launch.exportUuids).toBe("export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=GPU-cccc,GPU-dddd");
    expect(launch.exportReservation).toBe("export GPUDESK_RESERVATION=res1.proof");
  });

  it("gives docker, compose and torchrun lines for the same GPUs", () => {
    const launch = launchSettings(gpus, "res1.proof");
    expect(launch.docker).toBe(`docker run --gpus '"device=2,3"' -e GPUDESK_RESERVATION=res1.proof IMAGE COMMAND`);
    expect(launch.compose).toContain('device_ids: ["2", "3"]');
    expect(launch.compose).toContain("capabilities: [gpu]");
    expect(launch.compose).toContain('GPUDESK_RESERVATION: "res1.proof"');
    expect(launch.torchrun).toBe("CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3 GPUDESK_RESERVATION=res1.proof torchrun --standalone --nproc_per_node=2 train.py");
  });

  it("says how frameworks number the booked GPUs inside the job", () => {
    const launch = launchSettings(gpus);
    expect(launch.frameworks.pytorch).toContain("cuda:0 is GPU 2, cuda:1 is GPU 3");
    expect(launch.frameworks.tensorflow).toBe("TensorFlow sees them as /gpu:0, /gpu:1.");
    expect(launch.exportReservation).toBeNull();
    expect(launch.reservationValue).toBeNull();
    expect(launch.torchrun).not.toContain("GPUDESK_RESERVATION");
    expect(launch.docker).toBe(`docker run --gpus '"device=2,3"' IMAGE COMMAND`);
    expect(launchSettings([{ index: 5, uuid: "GPU-x" }]).frameworks.tensorflow).toBe("TensorFlow sees it as /gpu:0.");
  });
});

describe("launch settings of MIG slices", () => {
  const slice = (deviceIndex: number, profile: string) => ({ index: 0, uuid: `MIG-0000000${deviceIndex}-0000-0000-0000-00000000000${deviceIndex}`, mig: { deviceIndex, profile } });

  it("one slice: its MIG UUID, docker device=GPU:MIG, compose device_ids", () => {
    const launch = launchSettings([slice(2, "1g.10gb")], "r1.proof");
    expect(launch.exportUuids).toBe("export CUDA_VISIBLE_DEVICES=MIG-00000002-0000-0000-0000-000000000002");
    expect(launch.cudaVisibleDevices).toBe("MIG-00000002-0000-0000-0000-000000000002");
    expect(launch.docker).toBe(`docker run --gpus '"device=0:2"' -e GPUDESK_RESERVATION=r1.proof IMAGE COMMAND`);
    expect(launch.compose).toContain(`device_ids: ["0:2"]`);
    expect(launch.slices).toEqual([
      { ref: "0:2", profile: "1g.10gb", uuid: "MIG-00000002-0000-0000-0000-000000000002", export: "export CUDA_VISIBLE_DEVICES=MIG-00000002-0000-0000-0000-000000000002", docker: `docker run --gpus '"device=0:2"' -e GPUDESK_RESERVATION=r1.proof IMAGE COMMAND` },
    ]);
    expect(launch.frameworks.pytorch).toContain("cuda:0");
  });

  it("several slices: one line per slice, one compose service per slice, no torchrun across them", () => {
    const launch = launchSettings([slice(3, "1g.10gb"), slice(1, "2g.20gb")], null);
    expect(launch.exportUuids.split("\n")).toEqual([
      "export CUDA_VISIBLE_DEVICES=MIG-00000001-0000-0000-0000-000000000001  # 0:1 2g.20gb",
      "export CUDA_VISIBLE_DEVICES=MIG-00000003-0000-0000-0000-000000000003  # 0:3 1g.10gb",
    ]);
    expect(launch.docker.split("\n")).toEqual([
      `docker run --gpus '"device=0:1"' IMAGE COMMAND  # 0:1 2g.20gb`,
      `docker run --gpus '"device=0:3"' IMAGE COMMAND  # 0:3 1g.10gb`,
    ]);
    expect(launch.compose).toContain("  job-0-1:");
    expect(launch.compose).toContain(`device_ids: ["0:3"]`);
    expect(launch.torchrun).toContain("no torchrun across slices");
    expect(launch.exportReservation).toBeNull();
  });
});
