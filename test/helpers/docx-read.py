"""Reads a DOCX with python-docx (an independent reader) and prints what the tests check, as JSON.

Usage: /usr/bin/python3 docx-read.py FILE.docx
"""
import json
import sys

import docx
from docx.oxml.ns import qn


def style_outline_level(style):
    """The outline level a paragraph style declares (w:outlineLvl), following basedOn; None if none."""
    while style is not None:
        ppr = style.element.find(qn('w:pPr'))
        if ppr is not None:
            lvl = ppr.find(qn('w:outlineLvl'))
            if lvl is not None:
                return int(lvl.get(qn('w:val')))
        style = style.base_style
    return None


def main(path):
    d = docx.Document(path)
    cp = d.core_properties
    paragraphs = []
    for p in d.paragraphs:
        numpr = p._p.find('.//' + qn('w:numPr'))
        paragraphs.append({
            'style': p.style.name,
            'styleId': p.style.style_id,
            'outlineLevel': style_outline_level(p.style),
            'text': p.text,
            'numbered': numpr is not None,
        })
    tables = []
    for t in d.tables:
        rows = []
        for r in t.rows:
            trpr = r._tr.trPr
            header = trpr is not None and trpr.find(qn('w:tblHeader')) is not None
            rows.append({'header': header, 'cells': [c.text for c in r.cells]})
        tables.append(rows)
    sections = []
    for s in d.sections:
        cols = s._sectPr.find(qn('w:cols'))
        sections.append({
            'start': str(s.start_type),
            'orientation': str(s.orientation),
            'pageWidthCm': round(s.page_width.cm, 2) if s.page_width else None,
            'pageHeightCm': round(s.page_height.cm, 2) if s.page_height else None,
            'leftMarginCm': round(s.left_margin.cm, 2) if s.left_margin is not None else None,
            'columns': int(cols.get(qn('w:num'))) if cols is not None and cols.get(qn('w:num')) else 1,
            'titlePage': s.different_first_page_header_footer,
            'header': [p.text for p in s.header.paragraphs] if not s.header.is_linked_to_previous else None,
            'footer': [p.text for p in s.footer.paragraphs] if not s.footer.is_linked_to_previous else None,
        })
    images = []
    for shape in d.inline_shapes:
        doc_pr = shape._inline.docPr
        images.append({'widthEmu': int(shape.width), 'heightEmu': int(shape.height), 'description': doc_pr.get('descr')})
    print(json.dumps({
        'core': {
            'title': cp.title,
            'author': cp.author,
            'subject': cp.subject,
            'keywords': cp.keywords,
            'created': cp.created.isoformat() if cp.created else None,
            'modified': cp.modified.isoformat() if cp.modified else None,
            'description': cp.comments or None,
        },
        'paragraphs': paragraphs,
        'tables': tables,
        'sections': sections,
        'images': images,
    }))


if __name__ == '__main__':
    main(sys.argv[1])
