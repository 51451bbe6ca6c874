import { describe, expect, it } from "vitest";
import { launchSettings } from "@/lib/launch-settings";

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
