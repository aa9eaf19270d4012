// The converge chart, hand-written SVG (no dependency): converge wall time against the number of sets, one line
// per mode, one panel per API latency.

export interface Series {
  readonly label: string;
  readonly color: string;
  /** [sets, seconds] points. */
  readonly points: readonly (readonly [number, number])[];
}

export interface Panel {
  readonly title: string;
  readonly series: readonly Series[];
}

export const MODE_COLORS: Readonly<Record<string, string>> = { fleet: "#1f77b4", workqueue: "#d62728", floor: "#2ca02c" };

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** 1, 2, 5 × 10^k steps giving about `count` ticks from 0 to at least `max`. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [0];
  while ((ticks[ticks.length - 1] ?? 0) < max) ticks.push(Number(((ticks[ticks.length - 1] ?? 0) + step).toPrecision(12)));
  return ticks;
}

function format(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(value < 1 ? 2 : 1);
}

export function renderChart(panels: readonly Panel[], title: string): string {
  const panelWidth = 420;
  const panelHeight = 300;
  const margin = { left: 64, right: 16, top: 56, bottom: 48 };
  const width = Math.max(1, panels.length) * (panelWidth + margin.left + margin.right);
  const height = panelHeight + margin.top + margin.bottom;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>`,
  ];
  panels.forEach((panel, index) => {
    const x0 = index * (panelWidth + margin.left + margin.right) + margin.left;
    const y0 = margin.top;
    const allPoints = panel.series.flatMap((s) => s.points);
    const xTicks = niceTicks(Math.max(1, ...allPoints.map(([x]) => x)));
    const yTicks = niceTicks(Math.max(0.1, ...allPoints.map(([, y]) => y)));
    const xMax = xTicks[xTicks.length - 1] ?? 1;
    const yMax = yTicks[yTicks.length - 1] ?? 1;
    const sx = (x: number) => x0 + (x / xMax) * panelWidth;
    const sy = (y: number) => y0 + panelHeight - (y / yMax) * panelHeight;
    parts.push(`<text x="${x0 + panelWidth / 2}" y="${y0 - 10}" text-anchor="middle" font-weight="bold">${escape(panel.title)}</text>`);
    for (const tick of yTicks) {
      parts.push(`<line x1="${x0}" y1="${sy(tick)}" x2="${x0 + panelWidth}" y2="${sy(tick)}" stroke="#e5e5e5"/>`);
      parts.push(`<text x="${x0 - 6}" y="${sy(tick) + 4}" text-anchor="end">${format(tick)}</text>`);
    }
    for (const tick of xTicks) {
      parts.push(`<line x1="${sx(tick)}" y1="${y0 + panelHeight}" x2="${sx(tick)}" y2="${y0 + panelHeight + 4}" stroke="#333"/>`);
      parts.push(`<text x="${sx(tick)}" y="${y0 + panelHeight + 18}" text-anchor="middle">${format(tick)}</text>`);
    }
    parts.push(`<rect x="${x0}" y="${y0}" width="${panelWidth}" height="${panelHeight}" fill="none" stroke="#333"/>`);
    parts.push(`<text x="${x0 + panelWidth / 2}" y="${y0 + panelHeight + 36}" text-anchor="middle">StatefulSets created at once</text>`);
    const yLabelX = x0 - 46;
    const yLabelY = y0 + panelHeight / 2;
    parts.push(`<text x="${yLabelX}" y="${yLabelY}" text-anchor="middle" transform="rotate(-90 ${yLabelX} ${yLabelY})">seconds until all converged</text>`);
    panel.series.forEach((series, seriesIndex) => {
      const sorted = [...series.points].sort((a, b) => a[0] - b[0]);
      if (sorted.length > 1) {
        const path = sorted.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" ");
        parts.push(`<polyline points="${path}" fill="none" stroke="${series.color}" stroke-width="2"/>`);
      }
      for (const [x, y] of sorted) {
        parts.push(
          `<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="3.5" fill="${series.color}"><title>${escape(`${series.label}: ${x} sets, ${format(y)} s`)}</title></circle>`,
        );
      }
      const ly = y0 + 16 + seriesIndex * 16;
      parts.push(`<line x1="${x0 + 10}" y1="${ly - 4}" x2="${x0 + 28}" y2="${ly - 4}" stroke="${series.color}" stroke-width="2"/>`);
      parts.push(`<text x="${x0 + 34}" y="${ly}">${escape(series.label)}</text>`);
    });
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
