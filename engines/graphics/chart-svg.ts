// Charts (bar, line, area, scatter, pie) as self-contained SVG in points, for the PDF, DOCX and ODT renderers to embed.
// Longer than 400 lines: five chart kinds share one frame (axes, ticks, legend, label fitting); each kind is a short function below it.
import type { ChartElement } from '../../contracts/document-json.js';
import { escapeXml } from '../xml-escape.js';

export interface ChartSvgOptions {
  /** Final width in points. */
  widthPt: number;
  /** Final height in points. */
  heightPt: number;
  fontFamily: string;
  /** Size of tick labels and legend text (default: from the chart size, 7 to 10 pt). */
  fontSizePt?: number;
  colors: { text: string; muted: string; grid?: string; palette: string[] };
}

export interface ChartSvg {
  svg: string;
  widthPt: number;
  heightPt: number;
  /** One sentence for alt text, in English. */
  description: string;
}

type Point = { x: number; y: number };
type Series = { name: string; color: string; points: Point[] };
type LegendEntry = { label: string; color: string };
type Box = { left: number; top: number; right: number; bottom: number };
/** What the chart has room for: a small chart drops its legend, then axis titles, title and tick labels. */
type Show = { legend: boolean; xLabel: boolean; yLabel: boolean; ticks: boolean };

const DEFAULT_PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const SAFE_COLOR = /^(#[0-9a-f]{3,8}|[a-z]{3,20}|rgba?\([0-9.,%\s]+\))$/i;
/** Values beyond these magnitudes are clamped (or taken as 0) so that no range, step or coordinate overflows. */
const MAX_MAGNITUDE = 1e307;
const MIN_MAGNITUDE = 1e-290;
const KIND_NAMES = { bar: 'Bar', line: 'Line', area: 'Area', scatter: 'Scatter', pie: 'Pie' } as const;

/** Draws `chart` at exactly `options.widthPt` × `options.heightPt` points. */
export function chartSvg(chart: ChartElement, options: ChartSvgOptions): ChartSvg {
  const W = options.widthPt;
  const H = options.heightPt;
  if (!(Number.isFinite(W) && W > 0 && Number.isFinite(H) && H > 0)) throw new RangeError(`Chart size must be positive and finite, got ${W} × ${H} pt.`);
  const fs = options.fontSizePt !== undefined && options.fontSizePt > 0 ? options.fontSizePt : clamp(Math.min(W, H) / 26, 7, 10);
  const palette = options.colors.palette.filter((c) => SAFE_COLOR.test(c));
  const pal = palette.length ? palette : DEFAULT_PALETTE;
  const draw = new Drawing(options.fontFamily, fs, color(options.colors.text, '#222222'), color(options.colors.muted, '#666666'), options.colors.grid);
  const pad = fs * 0.75;
  const box: Box = { left: pad, top: pad, right: W - pad, bottom: H - pad };

  const room = (w: number, h: number) => W >= w * fs && H >= h * fs;
  if (chart.title && room(8, 10)) {
    const size = fs * 1.3;
    draw.text(W / 2, box.top + size * 0.8, fit(chart.title, W - 2 * pad, size), { size, anchor: 'middle', color: draw.textColor, weight: 'bold' });
    box.top += size * 1.2 + fs * 0.4;
  }

  const labels = chart.data.labels ?? [];
  const series: Series[] = chart.data.series.map((s, i) => ({
    name: s.name,
    color: s.color !== undefined && SAFE_COLOR.test(s.color) ? s.color : pal[i % pal.length]!,
    points: toPoints(s.values),
  }));
  const isPie = chart.chartType === 'pie';
  const show: Show = {
    legend: (chart.legend ?? (series.length > 1 || isPie)) && room(16, 14),
    xLabel: !!chart.xLabel && room(8, 12),
    yLabel: !!chart.yLabel && room(16, 8),
    ticks: room(8, 6),
  };

  if (isPie) drawPie(draw, box, pieSlices(series[0], labels, pal), show.legend, W);
  else drawCartesian(draw, box, chart, series, labels, show, W);

  const description = describe(chart, series, labels);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(W)}pt" height="${num(H)}pt" viewBox="0 0 ${num(W)} ${num(H)}">` +
    `<title>${escapeXml(description)}</title>${draw.out.join('')}</svg>`;
  return { svg, widthPt: W, heightPt: H, description };
}

// ---------------------------------------------------------------- cartesian charts

function drawCartesian(draw: Drawing, box: Box, chart: ChartElement, series: Series[], labels: string[], show: Show, W: number): void {
  const kind = chart.chartType;
  const fs = draw.fs;
  if (show.legend) box.bottom -= legendBelow(draw, series.map((s) => ({ label: s.name, color: s.color })), box, W) + fs * 0.6;
  if (show.xLabel) {
    draw.text((box.left + box.right) / 2, box.bottom - fs * 0.2, fit(chart.xLabel!, box.right - box.left, fs), { size: fs, anchor: 'middle', color: draw.textColor });
    box.bottom -= fs * 1.4;
  }
  if (show.ticks) {
    box.bottom -= fs * 1.5; // x tick labels
    box.top += fs * 0.5; // half of the top y tick label
  }
  const yLabelWidth = show.yLabel ? fs * 1.5 : 0;

  // Categories (bars, and number series) or a numeric x axis (line, area, scatter with {x, y} points).
  const isPoints = chart.data.series.map((s) => s.values.length > 0 && typeof s.values[0] === 'object');
  const anyPoints = isPoints.includes(true);
  // Without labels, a line, area or scatter of plain numbers gets a numeric axis of positions 1, 2, 3, …
  const numericX = kind !== 'bar' && (anyPoints || labels.length === 0);
  if (numericX) for (const [i, s] of series.entries()) if (!isPoints[i]) s.points = s.points.map((p) => ({ x: p.x + 1, y: p.y }));
  let categories: string[] = [];
  if (!numericX) {
    if (anyPoints) {
      // A bar chart of {x, y} points: one category per distinct x.
      const xs = [...new Set(series.flatMap((s, i) => (isPoints[i] ? s.points.map((p) => p.x) : [])))].sort((a, b) => a - b);
      const index = new Map(xs.map((x, i) => [x, i]));
      for (const [i, s] of series.entries()) if (isPoints[i]) s.points = s.points.map((p) => ({ x: index.get(p.x)!, y: p.y }));
      categories = xs.map((x) => formatNumber(x));
    } else {
      const count = Math.max(labels.length, ...series.map((s) => s.points.length));
      categories = Array.from({ length: count }, (_, i) => labels[i] ?? String(i + 1));
    }
  }

  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  let [yMin, yMax] = ys.length ? minMax(ys) : [0, 1];
  if (kind === 'bar' || kind === 'area') {
    yMin = Math.min(0, yMin);
    yMax = Math.max(0, yMax);
  }
  [yMin, yMax] = widen(yMin, yMax, kind === 'bar' || kind === 'area');
  const plotH = Math.max(1, box.bottom - box.top);
  const yAxis = niceTicks(yMin, yMax, Math.max(2, Math.floor(plotH / (fs * 2.8))));
  const yFmt = tickFormatter(yAxis.ticks, yAxis.step);
  const yTexts = show.ticks ? yAxis.ticks.map(yFmt) : yAxis.ticks.map(() => '');
  const yTextWidth = show.ticks ? Math.max(...yTexts.map((t) => textWidth(t, fs))) + fs * 0.5 : 0;
  box.left += yLabelWidth + yTextWidth;

  let xAxis: Ticks | undefined;
  let xFmt: (v: number) => string = String;
  if (numericX) {
    const xs = series.flatMap((s) => s.points.map((p) => p.x));
    const [xMin, xMax] = widen(...(xs.length ? minMax(xs) : ([0, 1] as [number, number])), false);
    const minStep = anyPoints ? 0 : 1;
    const guess = niceTicks(xMin, xMax, 5, minStep);
    const guessFmt = tickFormatter(guess.ticks, guess.step);
    const labelW = Math.max(...guess.ticks.map((t) => textWidth(guessFmt(t), fs)));
    if (show.ticks) box.right -= labelW / 2;
    xAxis = niceTicks(xMin, xMax, Math.max(2, Math.floor((box.right - box.left) / (labelW + fs * 2))), minStep);
    xFmt = tickFormatter(xAxis.ticks, xAxis.step);
  }
  const plotW = Math.max(1, box.right - box.left);
  const yOf = (v: number) => box.bottom - ((v - yAxis.lo) / (yAxis.hi - yAxis.lo)) * plotH;
  const slot = plotW / Math.max(1, categories.length);
  const xOf = xAxis ? (v: number) => box.left + ((v - xAxis.lo) / (xAxis.hi - xAxis.lo)) * plotW : (i: number) => box.left + (i + 0.5) * slot;

  // Grid, y ticks, the zero line.
  for (const [i, t] of yAxis.ticks.entries()) {
    const y = yOf(t);
    draw.line(box.left, y, box.right, y, draw.gridColor, 0.5, draw.gridOpacity);
    draw.text(box.left - fs * 0.5, y + fs * 0.35, yTexts[i]!, { size: fs, anchor: 'end', color: draw.mutedColor });
  }
  const baseValue = clamp(0, yAxis.lo, yAxis.hi);
  draw.line(box.left, yOf(yAxis.lo), box.right, yOf(yAxis.lo), draw.mutedColor, 0.75);
  if (yAxis.lo < 0 && yAxis.hi > 0) draw.line(box.left, yOf(0), box.right, yOf(0), draw.mutedColor, 0.75);

  // x ticks: every k-th category label, so that none overlap; or the numeric ticks.
  const tickY = box.bottom + fs * 1.25;
  if (xAxis) {
    for (const t of xAxis.ticks) {
      draw.line(xOf(t), box.top, xOf(t), box.bottom, draw.gridColor, 0.5, draw.gridOpacity);
      if (show.ticks) draw.text(xOf(t), tickY, xFmt(t), { size: fs, anchor: 'middle', color: draw.mutedColor });
    }
  } else if (categories.length && show.ticks) {
    const widest = Math.min(Math.max(...categories.slice(0, 2000).map((c) => textWidth(c, fs))), fs * 12);
    const every = niceStep(Math.max(1, (widest + fs) / slot));
    for (let i = 0; i < categories.length; i += every) {
      const text = fit(categories[i]!, slot * every - fs * 0.5, fs);
      const half = textWidth(text, fs) / 2;
      // A thinned-out label near an edge may not fit the chart: it is left out rather than clipped.
      if (every === 1 || (xOf(i) - half >= 0 && xOf(i) + half <= W)) draw.text(xOf(i), tickY, text, { size: fs, anchor: 'middle', color: draw.mutedColor });
    }
  }
  if (show.yLabel) {
    const x = box.left - yLabelWidth - yTextWidth + fs * 0.9;
    const y = (box.top + box.bottom) / 2;
    draw.text(x, y, fit(chart.yLabel!, plotH, fs), { size: fs, anchor: 'middle', color: draw.textColor, rotate: true });
  }

  const baseY = yOf(baseValue);
  if (kind === 'bar') {
    const group = slot * 0.8;
    const barW = group / series.length;
    for (const [si, s] of series.entries()) {
      const rects = s.points.map((p) => ({ x: xOf(p.x) - group / 2 + si * barW, y: yOf(p.y) }));
      draw.bars(rects, barW, baseY, s.color);
    }
    return;
  }
  const sparse = (n: number) => n <= plotW / (fs * 1.2);
  for (const s of series) {
    const pts = s.points.map((p) => ({ x: xOf(p.x), y: yOf(p.y) }));
    if (kind === 'scatter') {
      const dense = pts.length > 2000;
      draw.markers(pts, dense ? fs * 0.18 : fs * 0.3, s.color, dense ? 0.7 : 0.9);
      continue;
    }
    if (xAxis) pts.sort((a, b) => a.x - b.x);
    const thin = decimate(pts);
    if (kind === 'area' && thin.length > 1) draw.area(thin, baseY, s.color);
    draw.polyline(thin, s.color, Math.max(1, fs * 0.15));
    if (sparse(pts.length)) draw.markers(pts, fs * 0.28, s.color, 1);
  }
}

/** Legend rows centred below the plot; returns the height used. */
function legendBelow(draw: Drawing, entries: LegendEntry[], box: Box, W: number): number {
  const fs = draw.fs;
  const rowH = fs * 1.5;
  const maxRows = Math.max(1, Math.floor(((box.bottom - box.top) * 0.3) / rowH));
  const avail = box.right - box.left;
  const widths = entries.map((e) => fs * 1.2 + Math.min(textWidth(e.label, fs), avail * 0.5) + fs * 1.2);
  const rows: number[][] = [[]];
  let used = 0;
  for (const [i, w] of widths.entries()) {
    if (used + w > avail && rows[rows.length - 1]!.length) {
      rows.push([]);
      used = 0;
    }
    rows[rows.length - 1]!.push(i);
    used += w;
  }
  const shown = rows.slice(0, maxRows);
  const hidden = entries.length - shown.flat().length;
  if (hidden > 0) shown[shown.length - 1]!.pop(); // room for "+N"
  const top = box.bottom - shown.length * rowH;
  for (const [r, row] of shown.entries()) {
    const extra = hidden > 0 && r === shown.length - 1 ? textWidth(`+${hidden + 1}`, fs) : 0;
    let x = (W - row.reduce((a, i) => a + widths[i]!, 0) - extra + fs * 1.2) / 2;
    const y = top + r * rowH + fs;
    for (const i of row) {
      draw.swatch(x, y, entries[i]!.color);
      draw.text(x + fs * 1.2, y, fit(entries[i]!.label, avail * 0.5, fs), { size: fs, anchor: 'start', color: draw.textColor });
      x += widths[i]!;
    }
    if (extra) draw.text(x, y, `+${hidden + 1}`, { size: fs, anchor: 'start', color: draw.mutedColor });
  }
  return shown.length * rowH;
}

// ---------------------------------------------------------------- pie

type Slice = { label: string; value: number; color: string };

function pieSlices(series: Series | undefined, labels: string[], pal: string[]): Slice[] {
  // A pie shows shares: negative values have no share and count as 0.
  const pts = series?.points ?? [];
  return pts.map((p, i) => ({ label: labels[i] ?? String(i + 1), value: Math.max(0, p.y), color: pal[i % pal.length]! }));
}

function drawPie(draw: Drawing, box: Box, slices: Slice[], showLegend: boolean, W: number): void {
  const fs = draw.fs;
  const total = slices.reduce((a, s) => a + s.value, 0);
  const share = (v: number) => (total > 0 ? v / total : 0);
  const entries = slices.map((s) => ({ label: `${s.label} (${formatPercent(share(s.value))})`, color: s.color }));
  if (showLegend && entries.length) {
    const side = box.right - box.left >= (box.bottom - box.top) * 1.3;
    if (side) box.right = legendRight(draw, entries, box) - fs;
    else box.bottom -= legendBelow(draw, entries, box, W) + fs * 0.6;
  }
  const cx = (box.left + box.right) / 2;
  const cy = (box.top + box.bottom) / 2;
  const r = Math.max(1, (Math.min(box.right - box.left, box.bottom - box.top) / 2) * 0.95);
  if (!(total > 0)) {
    draw.out.push(`<circle cx="${num(cx)}" cy="${num(cy)}" r="${num(r)}" fill="none" stroke="${draw.mutedColor}" stroke-width="0.75"/>`);
    return;
  }
  // One path per colour (not per slice) keeps a pie of thousands of values small.
  const visible: { s: Slice; f: number; a0: number; a1: number }[] = [];
  let angle = -Math.PI / 2;
  for (const s of slices) {
    const f = share(s.value);
    if (f <= 0) continue;
    visible.push({ s, f, a0: angle, a1: angle + f * 2 * Math.PI });
    angle += f * 2 * Math.PI;
  }
  const dec = visible.length > 1000 ? 1 : 2;
  const at = (a: number) => `${num(cx + r * Math.cos(a), dec)} ${num(cy + r * Math.sin(a), dec)}`;
  const byColor = new Map<string, string>();
  const labelsOut: string[] = [];
  let separators = '';
  for (const [i, { s, f, a0, a1 }] of visible.entries()) {
    const whole = f >= 0.99999;
    const d = whole
      ? `M${num(cx - r)} ${num(cy)}a${num(r)} ${num(r)} 0 1 0 ${num(2 * r)} 0a${num(r)} ${num(r)} 0 1 0 ${num(-2 * r)} 0Z`
      : `M${num(cx, dec)} ${num(cy, dec)}L${at(a0)}A${num(r, dec)} ${num(r, dec)} 0 ${f > 0.5 ? 1 : 0} 1 ${at(a1)}Z`;
    byColor.set(s.color, (byColor.get(s.color) ?? '') + d);
    // A white edge between two slices, unless either is too thin for the edge to leave any colour.
    const prev = visible[(i + visible.length - 1) % visible.length]!;
    if (visible.length > 1 && f * 2 * Math.PI * r >= 3 && prev.f * 2 * Math.PI * r >= 3) separators += `M${num(cx)} ${num(cy)}L${at(a0)}`;
    const text = formatPercent(f);
    const mid = (a0 + a1) / 2;
    if (f * 2 * Math.PI * r * 0.68 > textWidth(text, fs) * 1.2 && r > fs * 3) {
      const tx = whole ? cx : cx + r * 0.68 * Math.cos(mid);
      const ty = whole ? cy : cy + r * 0.68 * Math.sin(mid);
      labelsOut.push(draw.textMarkup(tx, ty + fs * 0.35, text, { size: fs, anchor: 'middle', color: contrastOn(s.color, draw.textColor) }));
    }
  }
  for (const [c, d] of byColor) draw.out.push(`<path d="${d}" fill="${c}"/>`);
  if (separators) draw.out.push(`<path d="${separators}" fill="none" stroke="#ffffff" stroke-width="0.75" stroke-linecap="round"/>`);
  draw.out.push(...labelsOut);
}

/** Legend column at the right, vertically centred; returns its left edge. */
function legendRight(draw: Drawing, entries: LegendEntry[], box: Box): number {
  const fs = draw.fs;
  const rowH = fs * 1.5;
  const width = Math.min(fs * 1.2 + Math.max(...entries.map((e) => textWidth(e.label, fs))), (box.right - box.left) * 0.45);
  const maxRows = Math.max(1, Math.floor((box.bottom - box.top) / rowH));
  const hidden = entries.length > maxRows ? entries.length - maxRows + 1 : 0;
  const shown = entries.slice(0, entries.length - hidden);
  const rows = shown.length + (hidden ? 1 : 0);
  const left = box.right - width;
  let y = (box.top + box.bottom) / 2 - (rows * rowH) / 2 + fs;
  for (const e of shown) {
    draw.swatch(left, y, e.color);
    draw.text(left + fs * 1.2, y, fit(e.label, width - fs * 1.2, fs), { size: fs, anchor: 'start', color: draw.textColor });
    y += rowH;
  }
  if (hidden) draw.text(left + fs * 1.2, y, `+${hidden}`, { size: fs, anchor: 'start', color: draw.mutedColor });
  return left;
}

// ---------------------------------------------------------------- SVG output

type TextStyle = { size: number; anchor: 'start' | 'middle' | 'end'; color: string; weight?: 'bold'; rotate?: boolean };

class Drawing {
  readonly out: string[] = [];
  readonly textColor: string;
  readonly mutedColor: string;
  readonly gridColor: string;
  readonly gridOpacity: number;
  private readonly font: string;

  constructor(font: string, readonly fs: number, text: string, muted: string, grid: string | undefined) {
    this.font = escapeXml(font);
    this.textColor = text;
    this.mutedColor = muted;
    this.gridColor = grid !== undefined && SAFE_COLOR.test(grid) ? grid : muted;
    this.gridOpacity = grid !== undefined && SAFE_COLOR.test(grid) ? 1 : 0.3;
  }

  textMarkup(x: number, y: number, s: string, st: TextStyle): string {
    const rotate = st.rotate ? ` transform="rotate(-90 ${num(x)} ${num(y)})"` : '';
    const weight = st.weight ? ` font-weight="${st.weight}"` : '';
    // Rotated text is centred on (x, y); shift its baseline so the glyphs straddle the point.
    const yy = st.rotate ? y + st.size * 0.35 : y;
    return `<text x="${num(x)}" y="${num(yy)}" font-family="${this.font}" font-size="${num(st.size)}" fill="${st.color}" text-anchor="${st.anchor}"${weight}${rotate}>${escapeXml(s)}</text>`;
  }

  text(x: number, y: number, s: string, st: TextStyle): void {
    if (s) this.out.push(this.textMarkup(x, y, s, st));
  }

  line(x1: number, y1: number, x2: number, y2: number, stroke: string, width: number, opacity = 1): void {
    const op = opacity < 1 ? ` stroke-opacity="${opacity}"` : '';
    this.out.push(`<path d="M${num(x1)} ${num(y1)}L${num(x2)} ${num(y2)}" stroke="${stroke}" stroke-width="${width}"${op} fill="none"/>`);
  }

  swatch(x: number, baseline: number, fill: string): void {
    const s = this.fs * 0.8;
    this.out.push(`<rect x="${num(x)}" y="${num(baseline - s * 0.85)}" width="${num(s)}" height="${num(s)}" rx="${num(s * 0.15)}" fill="${fill}"/>`);
  }

  /** Bars of one series as one path; bars thinner than half a point are merged per half-point column. */
  bars(rects: Point[], width: number, baseY: number, fill: string): void {
    let d = '';
    const w = Math.max(width * 0.9, 0.01);
    if (width >= 0.5) {
      for (const r of rects) {
        const top = Math.min(r.y, baseY);
        const h = Math.abs(baseY - r.y);
        if (h > 0) d += `M${num(r.x + width * 0.05)} ${num(top)}h${num(w)}v${num(h)}h${num(-w)}Z`;
      }
    } else {
      const cols = new Map<number, { lo: number; hi: number }>();
      for (const r of rects) {
        const c = Math.floor(r.x * 2);
        const col = cols.get(c) ?? { lo: baseY, hi: baseY };
        col.lo = Math.min(col.lo, r.y);
        col.hi = Math.max(col.hi, r.y);
        cols.set(c, col);
      }
      for (const [c, col] of cols) if (col.hi > col.lo) d += `M${num(c / 2)} ${num(col.lo)}h0.5v${num(col.hi - col.lo)}h-0.5Z`;
    }
    if (d) this.out.push(`<path d="${d}" fill="${fill}"/>`);
  }

  polyline(pts: Point[], stroke: string, width: number): void {
    if (pts.length < 2) return;
    const d = pts.map((p, i) => `${i ? 'L' : 'M'}${num(p.x)} ${num(p.y)}`).join('');
    this.out.push(`<path d="${d}" fill="none" stroke="${stroke}" stroke-width="${num(width)}" stroke-linejoin="round" stroke-linecap="round"/>`);
  }

  area(pts: Point[], baseY: number, fill: string): void {
    const d = `M${num(pts[0]!.x)} ${num(baseY)}` + pts.map((p) => `L${num(p.x)} ${num(p.y)}`).join('') + `L${num(pts[pts.length - 1]!.x)} ${num(baseY)}Z`;
    this.out.push(`<path d="${d}" fill="${fill}" fill-opacity="0.25"/>`);
  }

  /** Circles as one path; points falling on the same spot (a quarter of the radius) are drawn once. */
  markers(pts: Point[], r: number, fill: string, opacity: number): void {
    const seen = new Set<string>();
    const cell = Math.max(0.25, r / 4);
    // Thousands of markers: a tenth of a point is precision enough, and keeps the path short.
    const dec = pts.length > 2000 ? 1 : 2;
    const arc = `a${num(r, dec)} ${num(r, dec)} 0 1 0 ${num(2 * r, dec)} 0a${num(r, dec)} ${num(r, dec)} 0 1 0 ${num(-2 * r, dec)} 0`;
    let d = '';
    for (const p of pts) {
      const key = `${Math.round(p.x / cell)},${Math.round(p.y / cell)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      d += `M${num(p.x - r, dec)} ${num(p.y, dec)}${arc}`;
    }
    if (d) this.out.push(`<path d="${d}" fill="${fill}"${opacity < 1 ? ` fill-opacity="${opacity}"` : ''}/>`);
  }
}

/** Keeps first, lowest, highest and last point of each half-point column once a line has more points than columns. */
function decimate(pts: Point[]): Point[] {
  if (pts.length < 2000) return pts;
  const out: Point[] = [];
  let i = 0;
  while (i < pts.length) {
    const col = Math.floor(pts[i]!.x * 2);
    const first = pts[i]!;
    let lo = first;
    let hi = first;
    let last = first;
    for (; i < pts.length && Math.floor(pts[i]!.x * 2) === col; i++) {
      const p = pts[i]!;
      if (p.y < lo.y) lo = p;
      if (p.y > hi.y) hi = p;
      last = p;
    }
    for (const p of new Set([first, lo, hi, last])) out.push(p);
  }
  return out;
}

// ---------------------------------------------------------------- numbers and text

type Ticks = { ticks: number[]; step: number; lo: number; hi: number };

/** The smallest 1, 2 or 5 × 10^n that is at least `raw`. */
function niceStep(raw: number): number {
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/** Ticks at multiples of 1, 2 or 5 × 10^n (and at least `minStep`) covering [min, max], about `target` of them. */
function niceTicks(min: number, max: number, target: number, minStep = 0): Ticks {
  const step = Math.max(minStep, niceStep((max - min) / Math.max(1, target)));
  const k0 = Math.floor(min / step + 1e-9);
  const k1 = Math.ceil(max / step - 1e-9);
  const ticks: number[] = [];
  for (let k = k0; k <= k1; k++) ticks.push(k === 0 ? 0 : Number((k * step).toPrecision(12)));
  return { ticks, step, lo: ticks[0]!, hi: ticks[ticks.length - 1]! };
}

const SUFFIXES: [number, string][] = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];

/**
 * Compact tick labels: 500, 1k, 1.5k, 3M, 0.001, 2e-7, 4e18 — each value in its own unit, with as many
 * decimals as the axis step needs, trailing zeros dropped, and a true minus sign.
 */
function tickFormatter(ticks: number[], step: number): (v: number) => string {
  const maxAbs = Math.max(...ticks.map(Math.abs));
  const stepExp = Math.floor(Math.log10(step) + 1e-9);
  const scientific = maxAbs >= 1e15 || maxAbs < 1e-4;
  return (v) => {
    const a = Math.abs(v);
    if (a < step * 1e-6) return '0';
    let s: string;
    if (scientific) {
      const digits = clamp(Math.floor(Math.log10(a) + 1e-9) - stepExp, 0, 6);
      s = trimZeros(a.toExponential(digits)).replace('e+', 'e');
    } else {
      const [unit, suffix] = SUFFIXES.find(([u]) => a >= u) ?? [1, ''];
      s = trimZeros((a / unit).toFixed(clamp(-Math.floor(Math.log10(step / unit) + 1e-9), 0, 12))) + suffix;
    }
    return s === '0' ? '0' : v < 0 ? `\u2212${s}` : s;
  };
}

/** A single value with three significant digits, in the ticks' style. */
function formatNumber(v: number): string {
  if (v === 0) return '0';
  return tickFormatter([v], 10 ** (Math.floor(Math.log10(Math.abs(v))) - 2))(v);
}

function formatPercent(f: number): string {
  const p = f * 100;
  if (p > 0 && p < 0.1) return '<0.1%';
  return `${p >= 10 || p === 0 ? Math.round(p) : trimZeros(p.toFixed(1))}%`;
}

function trimZeros(s: string): string {
  return s.replace(/(\.\d*?)0+(?=$|e)/, '$1').replace(/\.(?=$|e)/, '');
}

/** Finite values only (others are gaps), magnitudes bounded so that ranges and steps stay finite. */
function toPoints(values: ChartElement['data']['series'][number]['values']): Point[] {
  const out: Point[] = [];
  for (const [i, v] of (values as (number | Point)[]).entries()) {
    const p = typeof v === 'number' ? { x: i, y: v } : v && typeof v === 'object' ? { x: v.x, y: v.y } : undefined;
    if (p && Number.isFinite(p.x) && Number.isFinite(p.y)) out.push({ x: bound(p.x), y: bound(p.y) });
  }
  return out;
}

function bound(v: number): number {
  return Math.abs(v) < MIN_MAGNITUDE ? 0 : clamp(v, -MAX_MAGNITUDE, MAX_MAGNITUDE);
}

/** [min, max] without spreading the array into Math.min (10,000 values is fine; 500,000 is not). */
function minMax(vs: number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of vs) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/** An empty range gets room around its one value (or 0..1 when that value is 0). */
function widen(min: number, max: number, keepZero: boolean): [number, number] {
  // Values equal to 12 digits would give ticks that round to one value.
  if (max - min > Math.max(Math.abs(min), Math.abs(max)) * 1e-10) return [min, max];
  if (min === 0) return [0, 1];
  const d = Math.abs(min) * 0.1;
  if (keepZero) return min > 0 ? [0, min] : [min, 0];
  return [min - d, max + d];
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** A coordinate with at most `decimals` decimals (never "-0", never NaN). */
function num(v: number, decimals = 2): string {
  if (!Number.isFinite(v)) return '0';
  const f = 10 ** decimals;
  const r = Math.round(v * f) / f;
  return r === 0 ? '0' : String(r);
}

/** Width estimate without font metrics: wide (CJK, emoji) glyphs count 1 em, others 0.56 em. */
function textWidth(s: string, size: number): number {
  let w = 0;
  for (const ch of s) w += (ch.codePointAt(0)! >= 0x1100 && /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|\p{Extended_Pictographic}/u.test(ch) ? 1 : 0.56);
  return w * size;
}

/** `s`, cut with an ellipsis to fit `maxWidth`. */
function fit(s: string, maxWidth: number, size: number): string {
  if (textWidth(s, size) <= maxWidth) return s;
  const chars = [...s];
  while (chars.length && textWidth(chars.join('') + '…', size) > maxWidth) chars.pop();
  return chars.length ? chars.join('').trimEnd() + '…' : '';
}

function color(c: string, fallback: string): string {
  return SAFE_COLOR.test(c) ? c : fallback;
}

/** Black or white text, whichever reads better on `fill` (for hex colours; others get `fallback`). */
function contrastOn(fill: string, fallback: string): string {
  let hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(fill)?.[1];
  if (!hex) return fallback;
  if (hex.length === 3) hex = [...hex].map((c) => c + c).join('');
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex!.slice(i, i + 2), 16) / 255);
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b! > 0.55 ? '#000000' : '#ffffff';
}

// ---------------------------------------------------------------- description

function describe(chart: ChartElement, series: Series[], labels: string[]): string {
  const head = `${KIND_NAMES[chart.chartType]} chart${chart.title ? ` '${chart.title}'` : ''}`;
  const list = (xs: string[], n: number) => (xs.length <= n ? xs.join(', ') : `${xs.slice(0, n).join(', ')}, …`);
  const range = (vs: number[]) => {
    if (!vs.length) return 'no values';
    const [lo, hi] = minMax(vs);
    return lo === hi ? `value ${formatNumber(lo)}` : `values from ${formatNumber(lo)} to ${formatNumber(hi)}`;
  };
  const span = (xs: string[]) => (xs.length === 1 ? xs[0] : xs.length === 2 ? `${xs[0]}, ${xs[1]}` : `${xs[0]} … ${xs[xs.length - 1]}`);
  if (chart.chartType === 'pie') {
    const n = series[0]?.points.length ?? 0;
    const names = Array.from({ length: n }, (_, i) => labels[i] ?? String(i + 1));
    return `${head}: ${n} slice${n === 1 ? '' : 's'}${n ? ` (${span(names)})` : ''}`;
  }
  const names = series.map((s) => s.name);
  const count = Math.max(...series.map((s) => s.points.length), 0);
  const over = labels.length ? ` over ${labels.length} label${labels.length === 1 ? '' : 's'} (${span(labels)})` : ` with ${count} point${count === 1 ? '' : 's'}`;
  // The values as given (the drawing bounds magnitudes; the description need not).
  const ys = chart.data.series.flatMap((s) => (s.values as (number | Point)[]).map((v) => (typeof v === 'number' ? v : v?.y))).filter((v): v is number => Number.isFinite(v));
  return `${head}: ${series.length} series (${list(names, 5)})${over}; ${range(ys)}`;
}
