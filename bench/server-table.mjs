// The table of the per-server rows (bench/run.mjs): one row per measure, the median of each server's
// samples, the ratios to SDK 1.x and SDK 2.x, and the verdict against issue 6's targets.

/** The median of a list of numbers; undefined for an empty or missing list. */
export const median = (list) => {
  if (!list || list.length === 0) return undefined;
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** A number as the report shows it: thousands grouped, fewer decimals the larger it is. */
export const fmt = (v) => {
  if (v === undefined) return 'n/a';
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
};

/**
 * The measures of the per-server table, in order: key into the samples, label, which way is better and
 * issue 6's target where it sets one.
 */
export function serverRowSpecs(config, httpModes) {
  const rows = [
    { key: 'stdio1.cps', label: 'stdio sequential, calls/s', better: 'higher' },
    { key: 'stdio1.p50', label: 'stdio sequential, p50 ms', better: 'lower' },
    { key: 'stdio1.p99', label: 'stdio sequential, p99 ms', better: 'lower' },
    { key: 'stdio1.cpu', label: 'stdio sequential, server CPU µs/call', better: 'lower' },
    { key: 'stdio16.cps', label: 'stdio 16 in flight, calls/s', better: 'higher' },
    { key: 'stdio16.p50', label: 'stdio 16 in flight, p50 ms', better: 'lower' },
    { key: 'stdio16.p99', label: 'stdio 16 in flight, p99 ms', better: 'lower' },
    {
      key: 'stdio16.cpu',
      label: 'stdio 16 in flight, server CPU µs/call',
      better: 'lower',
      target: { abs: 6, sdkRef: 24 },
    },
    { key: 'stdio64.cps', label: 'stdio 64 in flight, calls/s', better: 'higher', target: { ratio: 2.5 } },
    { key: 'stdio64.p50', label: 'stdio 64 in flight, p50 ms', better: 'lower' },
    { key: 'stdio64.p99', label: 'stdio 64 in flight, p99 ms', better: 'lower' },
    { key: 'stdio64.cpu', label: 'stdio 64 in flight, server CPU µs/call', better: 'lower' },
    { key: 'modern16.cps', label: 'stdio 2026-07-28, 16 in flight, calls/s', better: 'higher' },
    { key: 'modern16.p99', label: 'stdio 2026-07-28, 16 in flight, p99 ms', better: 'lower' },
    { key: 'modern16.cpu', label: 'stdio 2026-07-28, 16 in flight, server CPU µs/call', better: 'lower' },
  ];
  for (const mode of httpModes) {
    for (const c of config.conns) {
      const name = `HTTP ${mode.id}, ${c} conn${c > 1 ? 's' : ''}`;
      const k = `http.${mode.id}.${c}`;
      rows.push({
        key: `${k}.cps`,
        label: `${name}, calls/s`,
        better: 'higher',
        target: mode.id === 'stateless-json' && c === 16 ? { ratio: 10 } : undefined,
      });
      rows.push({ key: `${k}.p99`, label: `${name}, p99 ms`, better: 'lower' });
      rows.push({
        key: `${k}.cpu`,
        label: `${name}, server CPU µs/call`,
        better: 'lower',
        target: mode.id === 'stateful-json' && c === 16 ? { abs: 30, sdkRef: 114 } : undefined,
      });
    }
  }
  rows.push(
    { key: 'listFirst', label: 'tools/list 1000 tools, first list ms', better: 'lower' },
    {
      key: 'list',
      label: 'tools/list 1000 tools, ms (median of later lists)',
      better: 'lower',
      target: { abs: 6, sdkRef: 49 },
    },
    {
      key: 'statelessList',
      label: 'tools/list 1000 tools, 2026-07-28, ms (median of later lists)',
      better: 'lower',
    },
    {
      key: 'cold',
      label: `cold start stdio (spawn → first result), ms (median of ${config.reps * config.colds}, in turns)`,
      better: 'lower',
      target: { abs: 110, sdkRef: 217 },
    },
    {
      key: 'coldInherited',
      label: "cold start stdio with the bench host's whole environment, ms",
      better: 'lower',
    },
    { key: 'idleRss', label: 'idle RSS after first call, MB', better: 'lower' },
    { key: 'sessionsRss', label: 'RSS per 1000 HTTP sessions (the first 1000), MB', better: 'lower' },
    {
      key: 'sessionsNextRss',
      label: 'RSS per 1000 HTTP sessions (the next 3000, after warm-up), MB',
      better: 'lower',
      target: { abs: 15, sdkRef: 63 },
    },
    {
      key: 'soakKb',
      label: `RSS growth over a ${config.soak / 1000}k-request soak, KB/request`,
      better: 'lower',
    },
    {
      key: 'soakLateKb',
      label: `RSS growth over the soak's second half (after warm-up), KB/request`,
      better: 'lower',
      target: { flat: 0.2 },
    },
    { key: 'soakRssAfter', label: 'RSS after the soak, MB', better: 'lower' },
  );
  return rows;
}

/** Each row's medians per server, its samples, its ratios and its verdict. */
export function serverResults(rows, servers, samples) {
  const results = [];
  for (const row of rows) {
    const med = Object.fromEntries(servers.map((s) => [s.id, median(samples[s.id][row.key])]));
    const base = med.sdk1;
    const ratio = (v) => (v === undefined || base === undefined || base === 0 ? undefined : v / base);
    let verdict = '';
    const tw = med.toolwire;
    if (row.target && tw !== undefined) {
      if (row.target.abs !== undefined && base !== undefined) {
        // The targets are ratios to SDK 1.x in the same run; an absolute target is the ratio of
        // the table (target ÷ the SDK's figure on the machine it was measured on).
        const limit = row.target.abs / row.target.sdkRef;
        const r = tw / base;
        const absolute = `${fmt(tw)} vs ${row.target.abs} on the issue's machine`;
        verdict =
          r <= limit
            ? `met: ${r.toFixed(2)}× ≤ ${limit.toFixed(2)}× (${absolute})`
            : `missed: ${r.toFixed(2)}× vs ≤ ${limit.toFixed(2)}× (${absolute})`;
      } else if (row.target.ratio !== undefined && base !== undefined) {
        const r = tw / base;
        verdict =
          r >= row.target.ratio
            ? `met (≥ ${row.target.ratio}×)`
            : `missed: ${r.toFixed(2)}× vs ≥ ${row.target.ratio}×`;
      } else if (row.target.flat !== undefined) {
        verdict =
          tw <= row.target.flat // a heap that shrinks (negative growth) is flat too
            ? `met (flat: ≤ ${row.target.flat} KB/request)`
            : `missed: ${fmt(tw)} KB/request`;
      }
    }
    results.push({
      ...row,
      medians: med,
      samples: Object.fromEntries(servers.map((s) => [s.id, samples[s.id][row.key] ?? []])),
      ratioToolwire: ratio(tw),
      ratioSdk2: ratio(med.sdk2),
      ratioToolwireSdk2:
        tw === undefined || med.sdk2 === undefined || med.sdk2 === 0 ? undefined : tw / med.sdk2,
      verdict,
    });
  }
  return results;
}

/** The per-server table as markdown lines (rows no server has a sample for are left out). */
export function serverTable(results, servers) {
  const ratioText = (r) => (r === undefined ? '' : `${r.toFixed(2)}×`);
  const header = `| measure | ${servers.map((s) => s.label).join(' | ')} | toolwire / SDK 1.x | SDK 2.x / SDK 1.x | toolwire / SDK 2.x | target (issue 6) |`;
  const lines = [header, `|---|${servers.map(() => '---:').join('|')}|---:|---:|---:|---|`];
  for (const r of results) {
    if (servers.every((s) => r.medians[s.id] === undefined)) continue;
    lines.push(
      `| ${r.label} | ${servers.map((s) => fmt(r.medians[s.id])).join(' | ')} | ${ratioText(r.ratioToolwire)} | ${ratioText(r.ratioSdk2)} | ${ratioText(r.ratioToolwireSdk2)} | ${r.verdict} |`,
    );
  }
  return lines;
}
