// Output a client does not read is bounded per connection, on the wire: a stdio child whose stdout the
// test leaves unread stops reading its stdin (its memory stays flat) and answers everything once the test
// reads; over legacy HTTP+SSE and Streamable HTTP, an unread stream stops its session's POSTs with 429
// while other sessions are served.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/limits-server.mjs', import.meta.url));

/** A field of /proc/<pid>/status in MiB (VmRSS: resident now, VmHWM: the peak). */
function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  return Number(kib) / 1024;
}

/** CPU time the process has used so far, in clock ticks (utime + stime of /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Resolves once the process has used no CPU for `quietPolls` polls in a row (it waits on something). */
async function idle(pid: number, quietPolls = 3, everyMs = 100): Promise<void> {
  let last = cpuTicks(pid);
  let quiet = 0;
  while (quiet < quietPolls) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    const now = cpuTicks(pid);
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

describe('a stdio client that does not read stdout', () => {
  it('makes the server stop reading stdin, with flat memory, and everything is answered once it reads', async () => {
    await using wire = new RawWire(FIXTURE);
    await wire.initialize('2025-11-25');
    const pid = wire.child.pid!;
    const before = memoryMiB(pid, 'VmRSS');
    wire.pauseReading();
    // 3000 answers of 64 KiB: 188 MiB of output for 0.3 MB of requests.
    const count = 3000;
    for (let id = 1; id <= count; id++) {
      wire.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'blob', arguments: { size: 65_536 } },
      });
    }
    // Either the server read every request (no backpressure), or it went idle with requests unread.
    const drained = new Promise<void>((resolve) => wire.child.stdin.once('drain', resolve));
    await Promise.race([drained, idle(pid)]);
    expect(wire.child.stdin.writableLength).toBeGreaterThan(0); // requests wait in the pipe, unread
    // Its peak so far: the queue's 8 MiB and a slice of answers, far from the 188 MiB of all of them.
    expect(memoryMiB(pid, 'VmHWM') - before).toBeLessThan(64);

    wire.resumeReading();
    for (let id = 1; id <= count; id++) {
      const answer = (await wire.next(20_000)) as { id: number; result: { content: [{ text: string }] } };
      expect(answer.id).toBe(id);
      expect(answer.result.content[0].text).toHaveLength(65_536);
    }
  });
});
