# Quire's LibreOffice bridge: drives one running soffice over UNO; JSON lines on stdin, one answer line per request on stdout.
# Run with Debian's /usr/bin/python3 (python3-uno): bridge.py <UNO connection> <connect timeout s> <server pid>. Requests:
#   {"id": 1, "op": "ping"}
#   {"id": 2, "op": "convert", "input": "/abs/in.docx", "output": "/abs/out.pdf", "inputFilter": "MS Word 2007 XML", "outputFilter": "writer_pdf_Export"}
# Answers: {"id": 1, "ok": true} or {"id": 1, "ok": false, "error": "..."}; the first line is {"ready": true} once connected.
import ctypes
import json
import os
import signal
import sys
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException


def props(**values):
    return tuple(PropertyValue(Name=k, Value=v) for k, v in values.items())


def connect(unourl, deadline):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext('com.sun.star.bridge.UnoUrlResolver', local)
    while True:
        try:
            ctx = resolver.resolve('uno:' + unourl + ';urp;StarOffice.ComponentContext')
            return ctx.ServiceManager.createInstanceWithContext('com.sun.star.frame.Desktop', ctx)
        except NoConnectException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def convert(desktop, req):
    # Never update links, never run macros, never ask: a template must not make LibreOffice fetch or execute anything.
    load = props(
        Hidden=True,
        ReadOnly=True,
        FilterName=req['inputFilter'],
        UpdateDocMode=0,  # com.sun.star.document.UpdateDocMode.NO_UPDATE
        MacroExecutionMode=0,  # com.sun.star.document.MacroExecMode.NEVER_EXECUTE
        Silent=True,
    )
    doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(req['input']), '_blank', 0, load)
    if doc is None:
        raise RuntimeError('LibreOffice could not open the document')
    try:
        doc.storeToURL(uno.systemPathToFileUrl(req['output']), props(FilterName=req['outputFilter'], Overwrite=True))
    finally:
        try:
            doc.close(True)
        except Exception:
            doc.dispose()


def answer(obj):
    sys.stdout.write(json.dumps(obj) + '\n')
    sys.stdout.flush()


def die_with_parent(parent):
    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return  # not Linux: the end of standard input still stops the bridge
    if parent is not None and os.getppid() != parent:
        os._exit(0)  # the server died before the request to die with it was made


def main():
    # The server decides when LibreOffice stops (a terminal's Ctrl-C or a process manager's SIGTERM reaches the whole
    # process group): a conversion under way finishes while the server drains its jobs. Were the server gone, standard
    # input ends below; were it killed, its reaper kills soffice.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # Killed with the server (prctl PR_SET_PDEATHSIG): a call into a soffice that the server's reaper has just killed
    # can block for good, and standard input would never be read again.
    die_with_parent(int(sys.argv[3]) if len(sys.argv) > 3 else None)
    unourl = sys.argv[1]
    connect_timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 30.0
    try:
        desktop = connect(unourl, time.monotonic() + connect_timeout)
    except Exception as err:  # soffice did not come up
        answer({'ready': False, 'error': '%s: %s' % (type(err).__name__, err)})
        return 2
    answer({'ready': True})
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            if req['op'] == 'convert':
                convert(desktop, req)
            elif req['op'] != 'ping':
                raise ValueError('unknown op %r' % req['op'])
            answer({'id': req['id'], 'ok': True})
        except Exception as err:
            # A dead connection (soffice crashed) ends the bridge: the Node side restarts both.
            fatal = type(err).__name__ in ('DisposedException', 'RuntimeException') and 'Binary URP bridge' in str(err)
            answer({'id': req['id'], 'ok': False, 'error': '%s: %s' % (type(err).__name__, err), 'fatal': fatal})
            if fatal:
                return 3
    # Standard input closed: Quire went away without stopping us; take soffice along rather than orphan it.
    try:
        desktop.terminate()
    except Exception:
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main())
