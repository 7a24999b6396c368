// The XMP reader and rewriter of pdf.metadata on packet shapes other producers write, checked with an independent XML parser.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { pdfAClaim, pdfUAClaim, updateXmp } from '../xmp.js';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** Attribute form on a self-closing Description, as Acrobat and Ghostscript often write it. */
const ATTRIBUTE_FORM = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="${RDF}">
<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"
  pdf:Producer="Old Producer" xmp:CreatorTool='Old Tool' pdfaid:part="3" pdfaid:conformance="a"/>
</rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`;

/** Element form with unusual prefixes for the same namespaces, several Descriptions, PDF/UA. */
const ELEMENT_FORM = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><r:RDF xmlns:r="${RDF}">
<r:Description r:about="" xmlns:d="http://purl.org/dc/elements/1.1/"><d:title><r:Alt><r:li xml:lang="x-default">Old title</r:li></r:Alt></d:title><d:creator><r:Seq><r:li>Old author</r:li></r:Seq></d:creator></r:Description>
<r:Description r:about="" xmlns:ua="http://www.aiim.org/pdfua/ns/id/"><ua:part>1</ua:part></r:Description>
</r:RDF></x:xmpmeta>`;

const parser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, attributeNamePrefix: '@' });

test('reads PDF/A and PDF/UA claims in attribute and element form, under any prefix', () => {
  assert.equal(pdfAClaim(ATTRIBUTE_FORM), { part: 3, conformance: 'A', identifier: 'PDF/A-3a' });
  assert.is(pdfUAClaim(ATTRIBUTE_FORM), null);
  assert.is(pdfAClaim(ELEMENT_FORM), null);
  assert.equal(pdfUAClaim(ELEMENT_FORM), { part: 1, identifier: 'PDF/UA-1' });
  assert.is(pdfAClaim('<x:xmpmeta/>'), null);
});

test('replaces attribute-form properties and opens a self-closing Description, keeping the PDF/A claim', () => {
  const out = updateXmp(ATTRIBUTE_FORM, { producer: 'New & <Producer>', creator: 'New Tool', title: 'Title "quoted"' })!;
  assert.is(XMLValidator.validate(out), true);
  assert.not.match(out, 'Old Producer');
  assert.not.match(out, 'Old Tool');
  const description = parser.parse(out).xmpmeta.RDF.Description;
  assert.is(description.Producer, 'New & <Producer>');
  assert.is(description.CreatorTool, 'New Tool');
  assert.is(description.title.Alt.li['#text'], 'Title "quoted"');
  assert.equal(pdfAClaim(out), { part: 3, conformance: 'A', identifier: 'PDF/A-3a' });
});

test('replaces element-form properties under other prefixes and leaves the other Descriptions alone', () => {
  const out = updateXmp(ELEMENT_FORM, { title: 'New title', author: 'New author', keywords: 'a, b' })!;
  assert.is(XMLValidator.validate(out), true);
  assert.not.match(out, 'Old title');
  assert.not.match(out, 'Old author');
  const [first, second] = parser.parse(out).xmpmeta.RDF.Description;
  assert.is(first.title.Alt.li['#text'], 'New title');
  assert.is(first.creator.Seq.li, 'New author');
  assert.is(first.Keywords, 'a, b');
  assert.is(second.part, 1);
});

test('returns null for a packet without an rdf:Description to write into', () => {
  assert.is(updateXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"/>', { title: 'x' }), null);
});

test.run();
