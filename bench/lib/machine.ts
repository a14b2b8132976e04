import os from 'node:os';

/** The machine a result was measured on, saved beside the figures. */
export function machineInfo() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryBytes: os.totalmem(),
    loadAverage: os.loadavg(),
    node: process.version,
  };
}
