// A picture of an equation, drawn by Typst from the same LaTeX conversion the PDF uses: the ODT stores it as
// the formula object's replacement image, which readers without a MathML renderer show instead of an empty
// frame, and its size is the formula's real size.
import { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import { latexToTypst } from '../typst/latex-to-typst.js';
import { bundledFontFiles } from '../fonts/bundled-fonts.js';

export interface FormulaPreview {
  /** A self-contained SVG (glyphs as paths). */
  svg: string;
  widthPt: number;
  heightPt: number;
}

/** The compiler reads only this in-memory project: a formula cannot reach a file. */
const WORKSPACE = '/quire-formula';
const MAIN = `${WORKSPACE}/main.typ`;
const DATA = `${WORKSPACE}/formula.json`;
// The math arrives as JSON data; eval in math mode is what quire.typ does, after the same allow-list check.
const SOURCE = `#let d = json("/formula.json")
#set page(width: auto, height: auto, margin: 0.5pt, fill: none)
#set text(size: d.size * 1pt)
#if d.display [$ #eval(d.math, mode: "math") $] else [$#eval(d.math, mode: "math")$]
`;

let compiler: NodeCompiler | null = null;

// The fonts by path, as the PDF's compiler has them: text in a formula (\text{…}) in Thai or CJK draws with the
// script's font, which Typst reads only when a formula first uses it.

function getCompiler(): NodeCompiler {
  if (!compiler) {
    compiler = NodeCompiler.create({ workspace: WORKSPACE, fontArgs: [{ fontPaths: bundledFontFiles() }] });
    compiler.addSource(MAIN, SOURCE);
  }
  return compiler;
}

/**
 * The equation drawn at `sizePt`, or null when it cannot be drawn: the PDF's LaTeX converter refuses it
 * (the MathML object is still written, only without a picture) or Typst reports an error.
 */
export function formulaPreview(latex: string, display: boolean, sizePt: number): FormulaPreview | null {
  const converted = latexToTypst(latex);
  if (!converted.ok) return null;
  const c = getCompiler();
  c.mapShadow(DATA, Buffer.from(JSON.stringify({ math: converted.typst, display, size: sizePt })));
  try {
    const svg = c.plainSvg({ mainFilePath: MAIN });
    const width = /<svg[^>]*\swidth="([\d.]+)pt"/.exec(svg)?.[1];
    const height = /<svg[^>]*\sheight="([\d.]+)pt"/.exec(svg)?.[1];
    if (!width || !height) return null;
    return { svg, widthPt: Number(width), heightPt: Number(height) };
  } catch {
    return null;
  } finally {
    c.unmapShadow(DATA);
    // Typst keeps compiled artefacts per distinct input; evict as the PDF worker does (see its comment).
    c.evictCache(10);
  }
}
