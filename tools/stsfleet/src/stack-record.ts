// stack.json kept current while the stack runs: written once the endpoints are known, rewritten on every process
// event (a spawn, an exit, a restart), never after stop. A process that is down between restarts keeps its last pid,
// so `stsfleet down` and the reaper still find it.
import { join } from "node:path";
import type { ProcessEntry, StackFile } from "./state.ts";
import { writeStackFile } from "./state.ts";
import type { ManagedProcess, SupervisorEvent } from "./supervisor.ts";

export interface RecordedProcesses {
  /** The stack's nats-server pid now, when it runs one. */
  natsPid(): number | undefined;
  readonly kubeSim: () => ManagedProcess | undefined;
  readonly services: ReadonlyMap<string, ManagedProcess>;
}

export class StackRecord {
  private readonly stateDir: string;
  private readonly logsDir: string;
  private readonly processes: RecordedProcesses;
  private readonly lastPids = new Map<string, number>();
  private file: StackFile | undefined;
  private closed = false;

  constructor(stateDir: string, logsDir: string, processes: RecordedProcesses) {
    this.stateDir = stateDir;
    this.logsDir = logsDir;
    this.processes = processes;
  }

  /** Every process of the stack as stack.json lists it. */
  entries(): ProcessEntry[] {
    const list: ProcessEntry[] = [];
    const natsPid = this.processes.natsPid();
    if (natsPid !== undefined) list.push({ service: "nats", name: "nats", pid: natsPid, log: join(this.logsDir, "nats.log") });
    const kubeSim = this.processes.kubeSim();
    if (kubeSim?.pid !== undefined) list.push({ service: "kube-sim", name: "kube-sim", pid: kubeSim.pid, log: kubeSim.logPath });
    for (const child of this.processes.services.values()) {
      const pid = child.pid ?? this.lastPids.get(child.name);
      if (pid === undefined) continue;
      list.push({
        service: child.service,
        name: child.name,
        pid,
        ...(child.metrics !== undefined ? { metrics: child.metrics } : {}),
        ...(child.probes !== undefined ? { probes: child.probes } : {}),
        restarts: child.restarts,
        log: child.logPath,
      });
    }
    return list;
  }

  /** Remembers a spawned process's pid for the time it is down. */
  note(event: SupervisorEvent): void {
    if (event.type === "spawned") this.lastPids.set(event.name, event.pid);
  }

  /** Starts writing stack.json with these endpoints (processes are filled in on every write). */
  begin(file: Omit<StackFile, "processes">): void {
    this.file = { ...file, processes: [] };
    this.persist();
  }

  persist(): void {
    if (!this.file || this.closed) return;
    this.file = { ...this.file, processes: this.entries() };
    writeStackFile(this.stateDir, this.file);
  }

  /** The last stack.json written, or what it would hold before the first write. */
  snapshot(fallback: Omit<StackFile, "processes">): StackFile {
    return this.file ?? { ...fallback, processes: this.entries() };
  }

  /** No more writes (the stack is stopping and removes the file). */
  close(): void {
    this.closed = true;
  }
}
