/**
 * The GPU models and team members the simulated fleet is made of. Figures are
 * what nvidia-smi reports for these boards, so that the dashboard's scales,
 * thresholds and fan/MIG/ECC handling meet realistic input.
 */

export interface SimulatedGpuModel {
  /** Exactly as `nvidia-smi --query-gpu=name` prints it. */
  name: string;
  memoryTotalMiB: number;
  powerLimitW: number;
  /** Draw with no CUDA context at all. */
  idlePowerW: number;
  /** Extra draw once a process holds a context, even at 0 % utilization. */
  contextPowerW: number;
  /** Temperature of an idle board in its chassis. */
  baseTempC: number;
  /** Rise from idle to full power draw. */
  tempRiseC: number;
  idleSmClockMHz: number;
  /** Boost clock with a context and light load. */
  maxSmClockMHz: number;
  /** Clock under sustained full load, once power limits bite. */
  loadSmClockMHz: number;
  idlePstate: string;
  computePstate: string;
  /** SXM modules are cooled by the chassis and report [N/A] for fan speed. */
  hasFan: boolean;
  /** GeForce boards have no MIG, so nvidia-smi reports [N/A] (null). */
  hasMig: boolean;
  /** ECC is off on GeForce boards, so the error counter is [N/A] (null). */
  hasEcc: boolean;
  driverVersion: string;
  cudaVersion: string;
  /** PCI bus numbers by index, in the order nvidia-smi enumerates them. */
  pciBuses: readonly string[];
  /**
   * How the GPUs of one host talk, as `nvidia-smi topo -m` shows it: every
   * pair over NVSwitch with this many bonded links, or PCIe only (pairs on
   * one switch, halves on two NUMA nodes).
   */
  interconnect: { kind: "nvswitch"; nvlinks: number } | { kind: "pcie" };
}

export const H100_SXM: SimulatedGpuModel = {
  name: "NVIDIA H100 80GB HBM3",
  memoryTotalMiB: 81559,
  powerLimitW: 700,
  idlePowerW: 72,
  contextPowerW: 45,
  baseTempC: 29,
  tempRiseC: 44,
  idleSmClockMHz: 345,
  maxSmClockMHz: 1980,
  loadSmClockMHz: 1755,
  idlePstate: "P0",
  computePstate: "P0",
  hasFan: false,
  hasMig: true,
  hasEcc: true,
  driverVersion: "550.127.05",
  cudaVersion: "12.4",
  // HGX H100 baseboard layout.
  pciBuses: ["18", "2A", "3A", "5D", "9A", "AB", "BA", "DB"],
  interconnect: { kind: "nvswitch", nvlinks: 18 },
};

export const A100_SXM4_40GB: SimulatedGpuModel = {
  name: "NVIDIA A100-SXM4-40GB",
  memoryTotalMiB: 40960,
  powerLimitW: 400,
  idlePowerW: 52,
  contextPowerW: 24,
  baseTempC: 28,
  tempRiseC: 40,
  idleSmClockMHz: 210,
  maxSmClockMHz: 1410,
  loadSmClockMHz: 1275,
  idlePstate: "P0",
  computePstate: "P0",
  hasFan: false,
  hasMig: true,
  hasEcc: true,
  driverVersion: "535.216.01",
  cudaVersion: "12.2",
  pciBuses: ["07", "0F", "47", "4E", "87", "90", "B7", "BD"],
  interconnect: { kind: "nvswitch", nvlinks: 12 },
};

export const RTX_4090: SimulatedGpuModel = {
  name: "NVIDIA GeForce RTX 4090",
  memoryTotalMiB: 24564,
  powerLimitW: 450,
  idlePowerW: 19,
  contextPowerW: 38,
  baseTempC: 33,
  tempRiseC: 38,
  idleSmClockMHz: 210,
  maxSmClockMHz: 2760,
  loadSmClockMHz: 2520,
  idlePstate: "P8",
  computePstate: "P2",
  hasFan: true,
  hasMig: false,
  hasEcc: false,
  driverVersion: "560.35.03",
  cudaVersion: "12.6",
  pciBuses: ["01", "21", "41", "61", "81", "A1", "C1", "E1"],
  // GeForce boards have no NVLink.
  interconnect: { kind: "pcie" },
};

export interface SimulatedUser {
  /** Unix login, which is how gpudesk matches a process owner to a person. */
  login: string;
  uid: number;
}

/** The team whose processes the simulated hosts run; seed data can create matching users. */
export const SIMULATED_USERS: readonly SimulatedUser[] = [
  { login: "alice", uid: 1001 },
  { login: "bob", uid: 1002 },
  { login: "carol", uid: 1003 },
  { login: "dave", uid: 1004 },
  { login: "erin", uid: 1005 },
  { login: "frank", uid: 1006 },
];
