/**
 * The write-scaling comparison of bench/api: per-write costs from a run's figures, the estimate
 * for a bigger machine, and the report's measured ratio. Pure functions over made-up runs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TargetResult } from '../../bench/api/api-bench.js';
import { buildScalingReport, estimatedRate, perWrite } from '../../bench/api/scaling-report.js';
import type { ScalingPhase, WriteScaling } from '../../bench/api/write-scaling.js';

function phase(replicas: number, opsPerS: number, replicaCpuS: number, mainS: number): ScalingPhase {
  const cpuS: Record<string, number> = { postgresql: 0.5, ...(replicas > 1 ? { haproxy: 0.1 } : {}) };
  const mainThreadCpuS: Record<string, number> = {};
  for (let i = 1; i <= replicas; i++) {
    const name = i === 1 ? 'octonet' : `octonet-${i}`;
    cpuS[name] = replicaCpuS / replicas;
    mainThreadCpuS[name] = mainS / replicas;
  }
  return {
    phase: 'port-create',
    count: 100,
    errors: 0,
    wallS: 100 / opsPerS,
    opsPerS,
    cpuS,
    mainThreadCpuS,
    driverCpuS: 0.2,
    db: {
      lockWaitS: { advisory: 0.05 },
      idleInTransactionS: 1,
      advisoryHeldS: 0.1,
      activeS: 2,
      topWaiters: [{ query: 'advisory: select pg_advisory_xact_lock(?)', seconds: 0.05 }],
      commits: 100,
      rollbacks: 2,
      deadlocks: 0,
      samples: 40,
    },
  };
}

function target(replicas: number, p: ScalingPhase): TargetResult {
  const scaling: WriteScaling = {
    replicas,
    cores: 2,
    concurrency: 8 * replicas,
    portQuota: 1_000_000,
    phases: [p],
    duplicates: 0,
  };
  return { name: `r${replicas}`, label: `x${replicas}`, source: 'measured', bench: null, exitCode: null, scaling };
}

describe('write-scaling report', () => {
  it('turns a phase into milliseconds per write, the replicas summed and the driver apart', () => {
    const t = target(3, phase(3, 50, 0.6, 0.45));
    const w = perWrite(t.scaling!, t.scaling!.phases[0]!);
    const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual}`);
    close(w.replicaMs, 6);
    close(w.mainThreadMs, 4.5);
    close(w.postgresMs, 5);
    close(w.haproxyMs, 1);
    close(w.serverMs, 12);
    close(w.driverMs, 2);
    close(w.lockWaitMs, 0.5);
    close(w.advisoryHeldMs, 1);
    close(w.rollbacksPerWrite, 0.02);
  });

  it('estimates a rate bounded by the event loops, the cores, and the quota lock', () => {
    const one = perWrite(target(1, phase(1, 50, 0.4, 0.3)).scaling!, phase(1, 50, 0.4, 0.3));
    // One event loop at 3 ms per write: 333/s, however many cores.
    assert.equal(Math.round(estimatedRate(one, 16)), 333);
    // Two cores for 9 ms of server CPU per write: 222/s.
    assert.equal(Math.round(estimatedRate(one, 2)), 222);
    // Three event loops would allow 1000/s; the quota lock, held 1 ms per write, allows 1000/s too;
    // held 2 ms, it is the bound.
    const three = perWrite(target(3, phase(3, 50, 0.4, 0.3)).scaling!, phase(3, 50, 0.4, 0.3));
    assert.equal(Math.round(estimatedRate(three, 64)), 1000);
    assert.equal(Math.round(estimatedRate({ ...three, advisoryHeldMs: 2 }, 64)), 500);
  });

  it('reports the measured ratio with the core count, and the estimate labelled as one', () => {
    const report = buildScalingReport([target(1, phase(1, 50, 0.4, 0.3)), target(3, phase(3, 60, 0.45, 0.33))])!;
    assert.match(report.text, /measured ×1\.20 on 2 cores \(goal ≥ ×2\.5: not met here\)/);
    assert.match(report.text, /ESTIMATE \(not measured\)/);
    assert.match(report.text, /ESTIMATE for one project's writes, through its quota lock/);
    assert.match(report.text, /waited 0\.05 s in advisory/);
    assert.equal(buildScalingReport([{ ...target(1, phase(1, 1, 1, 1)), scaling: undefined }]), undefined);
  });
});
