// LaTeX → MathML with Temml, for the targets that write equations themselves (DOCX converts the MathML to
// OMML, ODT embeds it as a formula object).
import temml from 'temml';

export type LatexToMathmlResult = { ok: true; mathml: string } | { ok: false; message: string };

const MATHML_ROOT = '<math xmlns="http://www.w3.org/1998/Math/MathML"';

/**
 * Converts `latex` to one standalone `<math xmlns="http://www.w3.org/1998/Math/MathML">` element
 * (display="block" for a display equation). Never throws: an expression Temml cannot read is an error
 * result with Temml's message. Temml's defaults keep \href, \url and \includegraphics off (trust: false).
 */
export function latexToMathml(latex: string, display: boolean): LatexToMathmlResult {
  let mathml: string;
  try {
    mathml = temml.renderToString(latex, { displayMode: display, xml: true, throwOnError: true, trust: false });
  } catch (err) {
    // Temml appends the expression with the fault underlined on a second line; the first line says what is wrong.
    const message = String((err as Error).message ?? err).split('\n')[0]!.replace(/^\s*(?:Temml parse error:|ParseError:)?\s*/i, '').trim();
    return { ok: false, message: `LaTeX could not be converted: ${message || 'unreadable expression'}` };
  }
  if (!mathml.startsWith(MATHML_ROOT)) return { ok: false, message: 'LaTeX could not be converted to MathML' };
  return { ok: true, mathml };
}
