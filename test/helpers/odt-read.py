"""Reads an ODT with odfpy (an independent reader) and prints what the tests check, as JSON.

Embedded formula objects and the manifest, which odfpy does not expose on load, are read with the
standard library's zipfile and ElementTree. Every XML part is parsed, so a malformed part fails here.

Usage: /usr/bin/python3 odt-read.py FILE.odt
"""
import json
import sys
import zipfile
import xml.etree.ElementTree as ET

from odf.opendocument import load
from odf import dc, draw, meta, style, svg, table, teletype, text
from odf.namespaces import DRAWNS, FONS, STYLENS, SVGNS, TABLENS, TEXTNS, XLINKNS

MANIFEST = '{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}'
MATHML = '{http://www.w3.org/1998/Math/MathML}'


def attr(element, ns, name):
    return element.attributes.get((ns, name))


def texts(elements):
    return [teletype.extractText(e) for e in elements]


def automatic_styles(doc):
    """Automatic and common styles of both parts, by name: family and properties (ns-local name → value)."""
    found = {}
    for container in (doc.automaticstyles, doc.styles, doc.masterstyles):
        for s in container.getElementsByType(style.Style):
            props = {}
            for child in s.childNodes:
                for (ns, local), value in getattr(child, 'attributes', {}).items():
                    props[local] = value
            found[attr(s, STYLENS, 'name')] = {
                'family': attr(s, STYLENS, 'family'),
                'parent': attr(s, STYLENS, 'parent-style-name'),
                'masterPage': attr(s, STYLENS, 'master-page-name'),
                'props': props,
                'element': s,
            }
    return found


def cell_record(c):
    return {
        'text': teletype.extractText(c),
        'colspan': int(attr(c, TABLENS, 'number-columns-spanned') or 1),
        'rowspan': int(attr(c, TABLENS, 'number-rows-spanned') or 1),
        'covered': c.qname[1] == 'covered-table-cell',
        'style': attr(c, TABLENS, 'style-name'),
    }


def rows_of(container):
    return [[cell_record(c) for c in r.childNodes if c.qname[1] in ('table-cell', 'covered-table-cell')] for r in container.getElementsByType(table.TableRow)]


def main(path):
    doc = load(path)
    styles = automatic_styles(doc)
    body = doc.text

    m = doc.meta
    metadata = {
        'title': texts(m.getElementsByType(dc.Title)),
        'subject': texts(m.getElementsByType(dc.Subject)),
        'description': texts(m.getElementsByType(dc.Description)),
        'date': texts(m.getElementsByType(dc.Date)),
        'creator': texts(m.getElementsByType(dc.Creator)),
        'initialCreator': texts(m.getElementsByType(meta.InitialCreator)),
        'keywords': texts(m.getElementsByType(meta.Keyword)),
        'creationDate': texts(m.getElementsByType(meta.CreationDate)),
        'generator': texts(m.getElementsByType(meta.Generator)),
        'language': texts(m.getElementsByType(dc.Language)),
    }

    def base_style(name):
        """The named (common) style a paragraph uses: an automatic style's parent, or the style itself."""
        s = styles.get(name)
        return s['parent'] if s and s['element'].parentNode is doc.automaticstyles and s['parent'] else name

    headings = [{'text': teletype.extractText(h), 'level': int(attr(h, TEXTNS, 'outline-level') or 0), 'style': base_style(attr(h, TEXTNS, 'style-name'))} for h in body.getElementsByType(text.H)]
    paragraphs = texts(body.getElementsByType(text.P))

    tables = []
    for t in body.getElementsByType(table.Table):
        header = t.getElementsByType(table.TableHeaderRows)
        header_rows = rows_of(header[0]) if header else []
        all_rows = rows_of(t)
        columns = []
        for col in t.getElementsByType(table.TableColumn):
            s = styles.get(attr(col, TABLENS, 'style-name'), {})
            columns.append(s.get('props', {}).get('column-width'))
        cell_styles = {}
        for r in all_rows:
            for c in r:
                if c['style']:
                    cell_styles[c['style']] = styles.get(c['style'], {}).get('props', {})
        tables.append({
            'name': attr(t, TABLENS, 'name'),
            'headerRows': len(header_rows),
            'rows': all_rows,
            'columns': columns,
            'width': styles.get(attr(t, TABLENS, 'style-name'), {}).get('props', {}).get('width'),
            'cellStyles': cell_styles,
        })

    images, objects = [], []
    for f in body.getElementsByType(draw.Frame):
        size = {'width': attr(f, SVGNS, 'width'), 'height': attr(f, SVGNS, 'height'), 'anchor': attr(f, TEXTNS, 'anchor-type')}
        title = texts(f.getElementsByType(svg.Title))
        desc = texts(f.getElementsByType(svg.Desc))
        for i in f.getElementsByType(draw.Image):
            if not f.getElementsByType(draw.Object):  # a formula's picture is reported with its object
                images.append({**size, 'href': attr(i, XLINKNS, 'href'), 'title': title, 'desc': desc})
        for o in f.getElementsByType(draw.Object):
            paragraph = f.parentNode
            p_style = styles.get(attr(paragraph, TEXTNS, 'style-name'), {})
            align = p_style.get('props', {}).get('text-align')
            parent = styles.get(p_style.get('parent'), {}) if p_style.get('parent') else {}
            tabs = [attr(t, STYLENS, 'type') for t in p_style['element'].getElementsByType(style.TabStop)] if p_style else []
            objects.append({**size, 'href': attr(o, XLINKNS, 'href'), 'replacement': [attr(i, XLINKNS, 'href') for i in f.getElementsByType(draw.Image)], 'desc': desc, 'paragraphText': teletype.extractText(paragraph), 'align': align or parent.get('props', {}).get('text-align'), 'tabs': ','.join(tabs)})

    notes = [{'citation': teletype.extractText(n.getElementsByType(text.NoteCitation)[0]), 'class': attr(n, TEXTNS, 'note-class'), 'body': teletype.extractText(n.getElementsByType(text.NoteBody)[0])} for n in body.getElementsByType(text.Note)]

    sections = []
    for s in body.getElementsByType(text.Section):
        st = styles.get(attr(s, TEXTNS, 'style-name'))
        cols = st['element'].getElementsByType(style.Columns) if st else []
        sep = st['element'].getElementsByType(style.ColumnSep) if st else []
        sections.append({
            'name': attr(s, TEXTNS, 'name'),
            'columns': int(attr(cols[0], FONS, 'column-count')) if cols else 1,
            'gap': attr(cols[0], FONS, 'column-gap') if cols else None,
            'separator': bool(sep),
            'text': teletype.extractText(s),
        })

    def index(kind):
        out = []
        for ix in body.getElementsByType(kind):
            bodies = ix.getElementsByType(text.IndexBody)
            entries = [teletype.extractText(p) for p in bodies[0].getElementsByType(text.P)] if bodies else []
            out.append({'name': attr(ix, TEXTNS, 'name'), 'entries': entries})
        return out

    masters = []
    for mp in doc.masterstyles.getElementsByType(style.MasterPage):
        header = mp.getElementsByType(style.Header)
        footer = mp.getElementsByType(style.Footer)
        masters.append({
            'name': attr(mp, STYLENS, 'name'),
            'next': attr(mp, STYLENS, 'next-style-name'),
            'layout': attr(mp, STYLENS, 'page-layout-name'),
            'header': teletype.extractText(header[0]) if header else None,
            'footer': teletype.extractText(footer[0]) if footer else None,
            'pageNumberFields': len(mp.getElementsByType(text.PageNumber)),
            'pageCountFields': len(mp.getElementsByType(text.PageCount)),
        })
    layouts = {}
    for pl in doc.automaticstyles.getElementsByType(style.PageLayout):
        p = pl.getElementsByType(style.PageLayoutProperties)[0]
        layouts[attr(pl, STYLENS, 'name')] = {k[1]: v for k, v in p.attributes.items()}

    first_master = None
    for p in body.childNodes:
        name = attr(p, TEXTNS, 'style-name') if p.qname[1] in ('p', 'h') else attr(p, TABLENS, 'style-name') if p.qname[1] == 'table' else None
        if name:
            first_master = styles.get(name, {}).get('masterPage')
            break

    lists = []
    for lst in body.getElementsByType(text.List):
        if attr(lst, TEXTNS, 'style-name') is None:
            continue  # nested lists are reported inside their parents
        items = [c for c in lst.childNodes if c.qname[1] == 'list-item']
        lists.append({
            'style': attr(lst, TEXTNS, 'style-name'),
            'start': attr(items[0], TEXTNS, 'start-value') if items else None,
            'items': [teletype.extractText(i.getElementsByType(text.P)[0]) for i in items],
            'nested': [teletype.extractText(p) for n in lst.getElementsByType(text.List) if n is not lst for p in n.getElementsByType(text.P)],
        })

    list_styles = {}
    for ls in doc.styles.getElementsByType(text.ListStyle):
        list_styles[attr(ls, STYLENS, 'name')] = {
            'number': len(ls.getElementsByType(text.ListLevelStyleNumber)),
            'bullet': len(ls.getElementsByType(text.ListLevelStyleBullet)),
        }

    heading_styles = {}
    for s in doc.styles.getElementsByType(style.Style):
        name = attr(s, STYLENS, 'name')
        if name and (name.startswith('Heading_20_') or name in ('Text_20_body', 'Caption', 'Quotations', 'Preformatted_20_Text', 'Bibliography_20_1', 'Internet_20_link', 'Table_20_Heading')):
            props = {}
            for child in s.childNodes:
                for (ns, local), value in getattr(child, 'attributes', {}).items():
                    props[local] = value
            heading_styles[name] = {'outlineLevel': attr(s, STYLENS, 'default-outline-level'), 'family': attr(s, STYLENS, 'family'), 'props': props}

    # Body paragraphs without text (spacers, page-break carriers): their style's paragraph properties.
    empty_paragraphs = []
    for p in body.childNodes:
        if p.qname[1] == 'p' and teletype.extractText(p) == '':
            st = styles.get(attr(p, TEXTNS, 'style-name'), {})
            empty_paragraphs.append({'props': {k: v for k, v in st.get('props', {}).items() if k in ('line-height', 'break-before')}, 'masterPage': st.get('masterPage')})

    bookmarks = [attr(b, TEXTNS, 'name') for kind in (text.Bookmark, text.BookmarkStart) for b in body.getElementsByType(kind)]
    links = [attr(a, XLINKNS, 'href') for a in body.getElementsByType(text.A)]
    sequences = [{'name': attr(s, TEXTNS, 'name'), 'value': teletype.extractText(s), 'caption': teletype.extractText(s.parentNode)} for s in body.getElementsByType(text.Sequence)]

    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        manifest = ET.fromstring(z.read('META-INF/manifest.xml'))
        entries = {e.get(MANIFEST + 'full-path'): e.get(MANIFEST + 'media-type') for e in manifest.iter(MANIFEST + 'file-entry')}
        formulas = []
        for full, media in entries.items():
            if media == 'application/vnd.oasis.opendocument.formula':
                root = ET.fromstring(z.read(full + 'content.xml'))
                replacement = None
                picture = 'ObjectReplacements/' + full.rstrip('/')
                if picture in entries:
                    picture_root = ET.fromstring(z.read(picture))
                    replacement = {'path': picture, 'type': entries[picture], 'root': picture_root.tag, 'width': picture_root.get('width'), 'height': picture_root.get('height')}
                formulas.append({'dir': full, 'root': root.tag, 'elements': sorted({e.tag.replace(MATHML, '') for e in root.iter()}), 'text': ''.join(root.itertext()), 'replacement': replacement})
        for n in names:
            if n.endswith('.xml'):
                ET.fromstring(z.read(n))  # every XML part parses
        infos = [{'name': i.filename, 'compress': i.compress_type, 'extra': len(i.extra)} for i in z.infolist()]

    print(json.dumps({
        'mimetype': doc.mimetype,
        'meta': metadata,
        'headings': headings,
        'paragraphs': paragraphs,
        'tables': tables,
        'images': images,
        'objects': objects,
        'notes': notes,
        'sections': sections,
        'toc': index(text.TableOfContent),
        'lof': index(text.IllustrationIndex),
        'lot': index(text.TableIndex),
        'masters': masters,
        'layouts': layouts,
        'firstMaster': first_master,
        'lists': lists,
        'emptyParagraphs': empty_paragraphs,
        'listStyles': list_styles,
        'styles': heading_styles,
        'bookmarks': bookmarks,
        'links': links,
        'sequences': sequences,
        'manifest': entries,
        'formulas': formulas,
        'zip': infos,
    }, ensure_ascii=False))


if __name__ == '__main__':
    main(sys.argv[1])
