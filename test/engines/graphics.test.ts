// Chart, QR and barcode SVGs: parsed by fast-xml-parser, rasterised by @napi-rs/canvas, QR decoded by jsQR and barcodes by ZXing.
// Longer than 400 lines: three engines (charts, QR codes, barcodes), each read back by its own independent decoder.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { createCanvas, Image } from '@napi-rs/canvas';
import jsQR from 'jsqr';
import ZXing from '@zxing/library';
import type { ChartElement } from '../../contracts/document-json.js';
import { chartSvg, type ChartSvgOptions } from '../../engines/graphics/chart-svg.js';
import { qrSvg } from '../../engines/graphics/qr-svg.js';
import { barcodeSvg, type BarcodeFormat } from '../../engines/graphics/barcode-svg.js';

// ---------------------------------------------------------------- independent readers

type Node = { name: string; attrs: Record<string, string>; text: string; children: Node[] };

/** Parses `svg` with a real XML parser (after validating it) into a plain element tree. */
function parseSvg(svg: string): Node {
  const valid = XMLValidator.validate(svg);
  assert.ok(valid === true, `not well-formed XML: ${JSON.stringify(valid)}`);
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', preserveOrder: true, parseTagValue: false, parseAttributeValue: false, trimValues: false, processEntities: true, htmlEntities: false });
  type Raw = Record<string, unknown> & { ':@'?: Record<string, string> };
  const convert = (raw: Raw): Node | undefined => {
    const name = Object.keys(raw).find((k) => k !== ':@');
    if (name === undefined || name === '#text' || name.startsWith('?')) return undefined;
    const kids = raw[name] as Raw[];
    const children = kids.map(convert).filter((n): n is Node => n !== undefined);
    const text = kids.map((k) => (k['#text'] !== undefined ? String(k['#text']) : '')).join('');
    return { name, attrs: raw[':@'] ?? {}, text, children };
  };
  const roots = (parser.parse(svg) as Raw[]).map(convert).filter((n): n is Node => n !== undefined);
  assert.is(roots.length, 1, 'one root element');
  return roots[0]!;
}

function all(node: Node, name?: string): Node[] {
  const out: Node[] = [];
  (function walk(n: Node) {
    if (name === undefined || n.name === name) out.push(n);
    n.children.forEach(walk);
  })(node);
  return out;
}

/** The checks every SVG of this module must pass: well-formed, pt-sized, self-contained, no NaN. */
function checkSvg(svg: string): Node {
  const root = parseSvg(svg);
  assert.is(root.name, 'svg');
  assert.is(root.attrs.xmlns, 'http://www.w3.org/2000/svg');
  assert.match(root.attrs.width ?? '', /^\d+(\.\d+)?pt$/);
  assert.match(root.attrs.height ?? '', /^\d+(\.\d+)?pt$/);
  assert.match(root.attrs.viewBox ?? '', /^0 0 \d+(\.\d+)? \d+(\.\d+)?$/);
  for (const el of all(root)) {
    assert.not.ok(['script', 'foreignObject', 'image', 'use', 'style', 'a'].includes(el.name), `<${el.name}> element`);
    for (const [k, v] of Object.entries(el.attrs)) {
      assert.not.match(v, /NaN|Infinity|undefined|null/, `<${el.name} ${k}="${v.slice(0, 80)}">`);
      assert.not.match(v, /url\s*\(/i, `url() in <${el.name} ${k}>`);
      assert.not.ok(/^on|href$/i.test(k), `attribute ${k} on <${el.name}>`);
    }
  }
  return root;
}

/**
 * Rasterises `svg` over white at `width` × `height` pixels (the viewBox mapped onto the whole canvas).
 * The root's size is set to the pixel size first: skia rasterises an SVG at its own size, and scaling
 * that bitmap afterwards would blur module edges.
 */
function rasterise(svg: string, width: number, height: number): { data: Uint8ClampedArray; width: number; height: number } {
  const sized = svg.replace(/^<svg([^>]*?) width="[^"]*" height="[^"]*"/, `<svg$1 width="${width}" height="${height}"`);
  assert.is.not(sized, svg, 'root has width and height');
  const img = new Image();
  img.src = Buffer.from(sized);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(img, 0, 0, width, height);
  return { data: ctx.getImageData(0, 0, width, height).data, width, height };
}

const viewBoxSize = (svg: string) => {
  const [, , w, h] = parseSvg(svg).attrs.viewBox!.split(' ').map(Number);
  return { w: w!, h: h! };
};

function isColor(data: Uint8ClampedArray, i: number, [r, g, b]: [number, number, number], tolerance = 40): boolean {
  return Math.abs(data[i]! - r) <= tolerance && Math.abs(data[i + 1]! - g) <= tolerance && Math.abs(data[i + 2]! - b) <= tolerance;
}

/** Vertical extents [top, bottom] (pixels) of the runs of columns holding `rgb`, left to right. */
function barsOf(img: { data: Uint8ClampedArray; width: number; height: number }, rgb: [number, number, number]) {
  const hasColor = (x: number) => {
    for (let y = 0; y < img.height; y++) if (isColor(img.data, (y * img.width + x) * 4, rgb, 10)) return true;
    return false;
  };
  const bars: { x: number; top: number; bottom: number }[] = [];
  for (let x = 0; x < img.width; x++) {
    if (!hasColor(x)) continue;
    const start = x;
    while (x < img.width && hasColor(x)) x++;
    const mid = Math.floor((start + x) / 2);
    let top = -1;
    let bottom = -1;
    for (let y = 0; y < img.height; y++) {
      if (isColor(img.data, (y * img.width + mid) * 4, rgb, 10)) {
        if (top < 0) top = y;
        bottom = y;
      }
    }
    bars.push({ x: mid, top, bottom: bottom + 1 });
  }
  return bars;
}

// ---------------------------------------------------------------- charts

const OPTIONS: ChartSvgOptions = { widthPt: 420, heightPt: 260, fontFamily: 'Noto Sans', colors: { text: '#222222', muted: '#666666', palette: ['#0000ff', '#00aa00', '#ff8800'] } };

const chart = (c: Omit<ChartElement, 'type'>): ChartElement => ({ type: 'chart', ...c }) as ChartElement;

/** A y tick label back to its number: "1.5k" → 1500, "−2" → -2, "3e-7" → 3e-7. */
function tickValue(s: string): number {
  const m = /^(−)?(\d+(?:\.\d+)?(?:e-?\d+)?)([kMGT]?)$/.exec(s);
  assert.ok(m, `tick label "${s}" is compact`);
  const unit = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m![3] as '' | 'k']!;
  return (m![1] ? -1 : 1) * Number(m![2]) * unit;
}

const yTicks = (root: Node) => all(root, 'text').filter((t) => t.attrs['text-anchor'] === 'end').map((t) => t.text);

test('draws a bar chart whose bars have the series colour and heights proportional to the values, negatives below zero', () => {
  const { svg } = chartSvg(chart({ chartType: 'bar', title: 'Heights', data: { labels: ['a', 'b', 'c', 'd'], series: [{ name: 'h', values: [1, 2, 4, -2], color: '#ff0000' }] } }), OPTIONS);
  checkSvg(svg);
  const bars = barsOf(rasterise(svg, 840, 520), [255, 0, 0]);
  assert.is(bars.length, 4, 'one red bar per value');
  const h = bars.map((b) => b.bottom - b.top);
  assert.ok(Math.abs(h[1]! / h[0]! - 2) < 0.05, `b/a = ${h[1]! / h[0]!}`);
  assert.ok(Math.abs(h[2]! / h[0]! - 4) < 0.05, `c/a = ${h[2]! / h[0]!}`);
  assert.ok(Math.abs(h[3]! / h[0]! - 2) < 0.05, `|d|/a = ${h[3]! / h[0]!}`);
  const zero = bars[0]!.bottom;
  assert.ok(bars.slice(0, 3).every((b) => Math.abs(b.bottom - zero) <= 1), 'positive bars stand on one baseline');
  assert.ok(Math.abs(bars[3]!.top - zero) <= 1, 'the negative bar hangs from that baseline');
});

test('groups the bars of several series per label, each series in its palette colour, with a legend', () => {
  const { svg } = chartSvg(chart({ chartType: 'bar', data: { labels: ['Q1', 'Q2', 'Q3'], series: [{ name: 'blue', values: [3, 2, 1] }, { name: 'green', values: [1, 2, 3] }] } }), OPTIONS);
  const root = checkSvg(svg);
  const img = rasterise(svg, 840, 520);
  const blue = barsOf(img, [0, 0, 255]).filter((b) => b.bottom - b.top > 30); // not the legend swatches
  const green = barsOf(img, [0, 170, 0]).filter((b) => b.bottom - b.top > 30);
  assert.is(blue.length, 3);
  assert.is(green.length, 3);
  for (let i = 0; i < 3; i++) assert.ok(blue[i]!.x < green[i]!.x, 'blue bar left of green bar in each group');
  assert.ok(green[0]!.x < blue[1]!.x, 'groups do not interleave');
  const texts = all(root, 'text').map((t) => t.text);
  assert.ok(texts.includes('blue') && texts.includes('green'), 'legend names both series');
});

test('picks nice y ticks (1, 2 or 5 × 10^n) and writes them compactly for every magnitude', () => {
  const cases: [number[], RegExp | undefined][] = [
    [[0, 1500, 3200], /k$/],
    [[2.5e6, 3.1e6], /M$/],
    [[7e9, 1e8], /G$/],
    [[0.001, 0.004], /^0\.00\d+$/],
    [[1e-7, 3e-7], /e-7$/],
    [[4e18, -2e18], /e18$/],
    [[-3, 7], undefined],
    [[0.1, 0.2, 0.3], undefined],
  ];
  for (const [values, expect] of cases) {
    const root = checkSvg(chartSvg(chart({ chartType: 'line', data: { labels: values.map((_, i) => `l${i}`), series: [{ name: 's', values }] } }), OPTIONS).svg);
    const labels = yTicks(root);
    assert.ok(labels.length >= 2, `${values}: ${labels}`);
    for (const l of labels) assert.ok(l.length <= 6, `${values}: "${l}" is short`);
    if (expect) assert.ok(labels.some((l) => expect.test(l)), `${values}: ${labels} match ${expect}`);
    const ticks = labels.map(tickValue);
    const step = ticks[1]! - ticks[0]!;
    for (let i = 1; i < ticks.length; i++) assert.ok(Math.abs(ticks[i]! - ticks[i - 1]! - step) <= Math.abs(step) * 1e-6, `${values}: evenly spaced ${labels}`);
    const mantissa = Math.abs(step) / 10 ** Math.floor(Math.log10(Math.abs(step)));
    assert.ok([1, 2, 5, 10].some((m) => Math.abs(mantissa - m) < 1e-6), `${values}: step ${step} is 1, 2 or 5 × 10^n`);
    assert.ok(ticks[0]! <= Math.min(...values) && ticks[ticks.length - 1]! >= Math.max(...values), `${values}: ticks ${labels} cover the data`);
  }
});

test('draws line, area and scatter charts in the series colour, rising with rising values', () => {
  for (const chartType of ['line', 'area', 'scatter'] as const) {
    const { svg } = chartSvg(chart({ chartType, data: { labels: ['a', 'b', 'c', 'd', 'e'], series: [{ name: 's', values: [1, 2, 3, 4, 5], color: '#ff0000' }] } }), OPTIONS);
    checkSvg(svg);
    const img = rasterise(svg, 840, 520);
    const red: { x: number; y: number }[] = [];
    for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) if (isColor(img.data, (y * img.width + x) * 4, [255, 0, 0], 30)) red.push({ x, y });
    assert.ok(red.length > 50, `${chartType}: red marks drawn`);
    const left = red.filter((p) => p.x < 250);
    const right = red.filter((p) => p.x > 650);
    const avgY = (ps: typeof red) => ps.reduce((a, p) => a + p.y, 0) / ps.length;
    assert.ok(left.length && right.length && avgY(left) > avgY(right) + 100, `${chartType}: the right end is higher`);
  }
});

test('draws pie sectors in the palette colours with areas in proportion, and percentage labels', () => {
  const { svg } = chartSvg(
    chart({ chartType: 'pie', title: 'Share', data: { labels: ['red', 'green', 'blue'], series: [{ name: 's', values: [50, 30, 20] }] } }),
    { ...OPTIONS, colors: { ...OPTIONS.colors, palette: ['#ff0000', '#00ff00', '#0000ff'] } },
  );
  const root = checkSvg(svg);
  const img = rasterise(svg, 840, 520);
  const counts = [0, 0, 0];
  const colours: [number, number, number][] = [[255, 0, 0], [0, 255, 0], [0, 0, 255]];
  for (let i = 0; i < img.data.length; i += 4) colours.forEach((c, k) => (counts[k]! += isColor(img.data, i, c, 20) ? 1 : 0));
  const total = counts[0]! + counts[1]! + counts[2]!;
  assert.ok(total > 10_000, 'sectors drawn');
  [0.5, 0.3, 0.2].forEach((share, k) => assert.ok(Math.abs(counts[k]! / total - share) < 0.03, `sector ${k}: ${counts[k]! / total}`));
  const texts = all(root, 'text').map((t) => t.text);
  for (const p of ['50%', '30%', '20%']) assert.ok(texts.includes(p), `label ${p} in ${texts}`);
  assert.ok(texts.some((t) => t.startsWith('green')), 'a pie has a legend by default');
});

test('every chart type survives the edge cases with well-formed SVG and no NaN', () => {
  const many = Array.from({ length: 10_000 }, (_, i) => Math.sin(i / 100) * 1000);
  const data: ChartElement['data'][] = [
    { labels: ['a', 'b'], series: [{ name: 'zeros', values: [0, 0] }] },
    { labels: ['only'], series: [{ name: 'one', values: [42] }] },
    { series: [{ name: 'one', values: [-7] }] },
    { labels: [], series: [{ name: 'empty', values: [] }] },
    { labels: ['', ''], series: [{ name: '', values: [1, 2] }] },
    { labels: ['a', 'b', 'c'], series: [{ name: 'huge', values: [1e300, -1e300, 1.7e308] }] },
    { labels: ['a', 'b'], series: [{ name: 'tiny', values: [1e-300, 3e-300] }] },
    { labels: ['a', 'b', 'c'], series: [{ name: 'bad', values: [NaN, Infinity, 3] }] },
    { series: [{ name: 'pts', values: [{ x: 5, y: 1 }, { x: -3, y: 2 }, { x: 5, y: 2 }] }, { name: 'nums', values: [1, 2] }] },
    { series: [{ name: 'same x', values: [{ x: 1, y: 1 }, { x: 1, y: 1 }] }] },
    { labels: Array.from({ length: 10_000 }, (_, i) => `label ${i}`), series: [{ name: 'many', values: many }] },
    { labels: ['a', 'b'], series: Array.from({ length: 50 }, (_, i) => ({ name: `series ${i} with a long name to wrap the legend`, values: [i, -i] })) },
    { labels: ['Привет', '日本語のラベル', '😀 emoji'], series: [{ name: 'ünïcödé', values: [3, 1, 2] }] },
  ];
  // Default legend, the opposite of the default, and a chart too small for anything but its marks.
  const variants = [
    { widthPt: 420, heightPt: 260, legend: undefined },
    { widthPt: 420, heightPt: 260, legend: 'flip' },
    { widthPt: 40, heightPt: 30, legend: undefined },
  ] as const;
  for (const chartType of ['bar', 'line', 'area', 'scatter', 'pie'] as const) {
    for (const d of data) {
      for (const { widthPt, heightPt, legend } of variants) {
        const flip = legend === 'flip' ? { legend: !(d.series.length > 1 || chartType === 'pie') } : {};
        const el = chart({ chartType, data: d, title: 'T', xLabel: 'x', yLabel: 'y', ...flip });
        const where = `${chartType} ${d.series[0]!.name} ${widthPt}×${heightPt} legend=${el.legend}`;
        const out = chartSvg(el, { ...OPTIONS, widthPt, heightPt });
        try {
          checkSvg(out.svg);
        } catch (err) {
          throw new Error(`${where}: ${(err as Error).message}`);
        }
        assert.is(out.widthPt, widthPt);
        assert.is(out.heightPt, heightPt);
        assert.not.match(out.description, /NaN|Infinity|undefined/, where);
      }
    }
  }
});

test('keeps 10,000-point charts small: no text per point, paths merged', () => {
  const points = Array.from({ length: 10_000 }, (_, i) => ({ x: i * 0.37, y: Math.sin(i) * 1e6 }));
  const values = points.map((p) => p.y);
  const labels = values.map((_, i) => `L${i}`);
  const cases: [ChartElement, number][] = [
    [chart({ chartType: 'line', data: { labels, series: [{ name: 'l', values }] } }), 150_000],
    [chart({ chartType: 'area', data: { series: [{ name: 'a', values: points }] } }), 150_000],
    [chart({ chartType: 'bar', data: { labels, series: [{ name: 'b', values }] } }), 150_000],
    [chart({ chartType: 'scatter', data: { series: [{ name: 's', values: points }] } }), 600_000],
    [chart({ chartType: 'pie', data: { labels, series: [{ name: 'p', values: values.map(Math.abs) }] } }), 1_200_000],
  ];
  for (const [el, maxBytes] of cases) {
    const { svg } = chartSvg(el, OPTIONS);
    const root = checkSvg(svg);
    assert.ok(svg.length < maxBytes, `${el.chartType}: ${svg.length} bytes`);
    assert.ok(all(root, 'text').length < 100, `${el.chartType}: ${all(root, 'text').length} text elements`);
    assert.ok(all(root, 'path').length < 100, `${el.chartType}: ${all(root, 'path').length} paths`);
  }
});

test('escapes hostile text, which then parses back to exactly what was given', () => {
  const hostile = `</text><script>alert(1)</script>&amp; "q" 'a'`;
  const font = `Evil" onload="alert(1)`;
  const { svg, description } = chartSvg(
    chart({ chartType: 'bar', title: hostile, xLabel: `<x>`, yLabel: `]]><y/>`, legend: true, data: { labels: [`<b>&`, `"c"`], series: [{ name: `<s name="x">`, values: [1, 2], color: 'url(http://evil.example/x)' }] } }),
    { ...OPTIONS, widthPt: 900, fontFamily: font, colors: { text: 'url(#x)', muted: '"/><script>', grid: 'red;fill:url(http://x)', palette: ['javascript:1'] } },
  );
  const root = checkSvg(svg);
  assert.not.match(svg, /<script/i);
  const texts = all(root, 'text');
  assert.ok(texts.some((t) => t.text === hostile), 'title text round-trips');
  for (const s of ['<x>', ']]><y/>', '<b>&', '"c"', '<s name="x">']) assert.ok(texts.some((t) => t.text === s), `${s} round-trips`);
  assert.ok(texts.every((t) => t.attrs['font-family'] === font), 'every text carries the font family, intact');
  assert.ok(description.includes(hostile), 'the description holds the plain text');
  assert.is(all(root, 'title')[0]!.text, description);
});

test('describes a chart for alt text', () => {
  const { description } = chartSvg(chart({ chartType: 'bar', title: 'Revenue', data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], series: [{ name: '2024', values: [1, 2, 3, 4] }, { name: '2025', values: [2, 3, 4, 5] }] } }), OPTIONS);
  assert.ok(description.startsWith(`Bar chart 'Revenue': 2 series (2024, 2025) over 4 labels (Q1 … Q4)`), description);
  const pie = chartSvg(chart({ chartType: 'pie', data: { labels: ['a', 'b'], series: [{ name: 's', values: [1, 1] }] } }), OPTIONS).description;
  assert.is(pie, 'Pie chart: 2 slices (a, b)');
});

// ---------------------------------------------------------------- QR codes

/** Rasterises a QR SVG at 4 px per module and decodes it with jsQR. */
function decodeQr(svg: string): string | undefined {
  const { w } = viewBoxSize(svg);
  const img = rasterise(svg, w * 4, w * 4);
  return jsQR.default(img.data, img.width, img.height)?.data;
}

test('draws QR codes that jsQR decodes back to the value: ASCII, UTF-8 and 1000 characters', () => {
  const values = ['https://quire.example.com/invoice/42', 'Привет, мир! 😀 ünïcödé 日本', 'HELLO 123', 'x'.repeat(1000), 'Ж'.repeat(1000)];
  for (const value of values) {
    const { svg, modules } = qrSvg(value);
    const root = checkSvg(svg);
    assert.is(all(root, 'path').length, 1, 'one path');
    assert.is(root.attrs['shape-rendering'], 'crispEdges');
    assert.is(viewBoxSize(svg).w, modules + 8, 'four modules of quiet zone on each side');
    assert.is(decodeQr(svg), value, `decodes ${value.slice(0, 20)}…`);
  }
});

test('honours the QR size, colour and error correction level', () => {
  const low = qrSvg('quire', { errorCorrection: 'L', sizePt: 50, color: '#123456' });
  const high = qrSvg('quire', { errorCorrection: 'H' });
  const root = checkSvg(low.svg);
  assert.is(root.attrs.width, '50pt');
  assert.is(all(root, 'path')[0]!.attrs.fill, '#123456');
  assert.ok(high.modules >= low.modules, 'H needs at least as many modules as L');
  assert.is(decodeQr(high.svg), 'quire');
  assert.is(decodeQr(low.svg), 'quire');
  // The quiet zone stays white: the first and last four module rows are empty.
  const { w } = viewBoxSize(low.svg);
  const img = rasterise(low.svg, w * 4, w * 4);
  for (let y = 0; y < 16; y++) for (let x = 0; x < img.width; x++) assert.ok(img.data[(y * img.width + x) * 4]! > 200, 'quiet zone');
});

test('refuses a QR value too long for any symbol with a clear error', () => {
  assert.throws(() => qrSvg('😀'.repeat(2000)), /Cannot encode a QR code of 4000 characters \(8000 UTF-8 bytes\) at error correction M/);
});

// ---------------------------------------------------------------- barcodes

const ZX: Record<BarcodeFormat, number> = {
  code128: ZXing.BarcodeFormat.CODE_128,
  ean13: ZXing.BarcodeFormat.EAN_13,
  ean8: ZXing.BarcodeFormat.EAN_8,
  upca: ZXing.BarcodeFormat.UPC_A,
  code39: ZXing.BarcodeFormat.CODE_39,
  itf14: ZXing.BarcodeFormat.ITF,
};

/** Rasterises a barcode SVG at 2 px per viewBox unit (4 px per module) and decodes it with ZXing, restricted to `format`. */
function decodeBarcode(svg: string, format: BarcodeFormat): { text: string; format: number } {
  const { w, h } = viewBoxSize(svg);
  const img = rasterise(svg, w * 2, h * 2);
  const lum = new Uint8ClampedArray(img.width * img.height);
  for (let i = 0; i < lum.length; i++) lum[i] = (img.data[i * 4]! * 299 + img.data[i * 4 + 1]! * 587 + img.data[i * 4 + 2]! * 114) / 1000;
  const bitmap = new ZXing.BinaryBitmap(new ZXing.HybridBinarizer(new ZXing.RGBLuminanceSource(lum, img.width, img.height)));
  const hints = new Map<ZXing.DecodeHintType, unknown>([
    [ZXing.DecodeHintType.POSSIBLE_FORMATS, [ZX[format]]],
    [ZXing.DecodeHintType.TRY_HARDER, true],
  ]);
  const reader = new ZXing.MultiFormatReader();
  const result = reader.decode(bitmap, hints);
  return { text: result.getText(), format: result.getBarcodeFormat() };
}

test('draws barcodes that ZXing decodes, computing a missing check digit', () => {
  const cases: [BarcodeFormat, string, string][] = [
    ['ean13', '400638133393', '4006381333931'],
    ['ean13', '4006381333931', '4006381333931'],
    ['ean8', '9638507', '96385074'],
    ['ean8', '96385074', '96385074'],
    ['upca', '03600029145', '036000291452'],
    ['upca', '036000291452', '036000291452'],
    ['itf14', '1540014128876', '15400141288763'],
    ['itf14', '15400141288763', '15400141288763'],
    ['code39', 'QUIRE-39 $/+%', 'QUIRE-39 $/+%'],
    ['code128', 'Quire 128: {ok} & <done>!', 'Quire 128: {ok} & <done>!'],
  ];
  for (const [format, value, decoded] of cases) {
    for (const showText of [true, false]) {
      const { svg } = barcodeSvg(value, format, { heightCm: 1.5, showText });
      checkSvg(svg);
      const result = decodeBarcode(svg, format);
      assert.is(result.text, decoded, `${format} ${value}`);
      assert.is(result.format, ZX[format]);
    }
  }
});

test('sizes barcodes in points with the asked bar height, and prints the value in the given font', () => {
  const tall = checkSvg(barcodeSvg('4006381333931', 'ean13', { heightCm: 3, showText: false }).svg);
  const short = checkSvg(barcodeSvg('4006381333931', 'ean13', { heightCm: 1, showText: false }).svg);
  const pt = (n: Node) => Number(n.attrs.height!.replace('pt', ''));
  // 2 cm more bar is 56.7 pt more symbol.
  assert.ok(Math.abs(pt(tall) - pt(short) - 56.69) < 1.5, `${pt(tall)} - ${pt(short)}`);
  const labelled = checkSvg(barcodeSvg('A&B <1>', 'code128', { heightCm: 1.5, showText: true, fontFamily: 'Noto "Sans"' }).svg);
  const texts = all(labelled, 'text');
  assert.is(texts.map((t) => t.text).join(''), 'A&B <1>');
  assert.ok(texts.every((t) => t.attrs['font-family'] === 'Noto "Sans"'));
  const ean = checkSvg(barcodeSvg('400638133393', 'ean13', { heightCm: 1.5, showText: true, fontFamily: 'Noto Sans' }).svg);
  assert.is(all(ean, 'text').map((t) => t.text).join(''), '4006381333931', 'EAN-13 text includes the computed check digit');
});

test('rejects values that do not fit the format with an error naming value and format', () => {
  const bad: [BarcodeFormat, string, RegExp][] = [
    ['ean13', '4006381333932', /"4006381333932" as a ean13 barcode: .*check digit/i],
    ['ean13', '12345', /"12345" as a ean13 barcode: .*12 or 13 digits/],
    ['ean8', '9638507X', /"9638507X" as a ean8 barcode/],
    ['upca', '036000291453', /"036000291453" as a upca barcode: .*check digit/i],
    ['itf14', '15400141288764', /"15400141288764" as a itf14 barcode: .*check digit/i],
    ['code39', 'lower case', /"lower case" as a code39 barcode: .*capital letters/],
    ['code128', '', /"" as a code128 barcode/],
  ];
  for (const [format, value, message] of bad) {
    assert.throws(() => barcodeSvg(value, format, { heightCm: 1.5, showText: true }), (err: Error) => err instanceof Error && message.test(err.message), `${format} ${value}`);
  }
});

test.run();
