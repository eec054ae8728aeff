"""Imported by every failing program of make_python_tracebacks.py.

It does not change what Python prints: sys.excepthook / threading.excepthook first call the
standard hooks (which print the real traceback), then append one JSON line describing the
exception (from the exception object itself, never from text) to $CORPUS_TRUTH.
`record(exc)` does the same for programs that catch the exception and log it themselves.
"""
import json
import os
import sys
import threading
import traceback

STDLIB = os.path.dirname(os.__file__)  # /usr/lib/python3.11


def printed_name(t):
    mod, qn = t.__module__, t.__qualname__
    return qn if mod in ('builtins', '__main__') else f'{mod}.{qn}'


def chain_of(exc):
    """Exceptions in the order traceback prints them (first printed first), with the link that
    leads to the next one: 'cause' ("The above exception was the direct cause") or 'context'
    ("During handling of the above exception")."""
    out = []
    seen = set()
    e = exc
    link = None
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append((e, link))
        if e.__cause__ is not None:
            e, link = e.__cause__, 'cause'
        elif e.__context__ is not None and not e.__suppress_context__:
            e, link = e.__context__, 'context'
        else:
            e = None
    out.reverse()
    # each entry's link says how it leads on to the exception printed after it
    return [{'class': printed_name(type(x)), 'leadsOn': link} for x, link in out]


def frames_of(exc):
    res = []
    for f in traceback.extract_tb(exc.__traceback__):
        std = f.filename.startswith(STDLIB + '/')
        res.append({
            'file': os.path.relpath(f.filename, STDLIB) if std else f.filename,
            'stdlib': std,
            'line': f.lineno,
            'function': f.name,
        })
    return res


def describe(exc):
    name = printed_name(type(exc))
    exc_only = ''.join(traceback.format_exception_only(type(exc), exc)).rstrip('\n').split('\n')
    # the exception line: the line of the exception-only part that starts with the class name
    # (SyntaxError prints its File/code/caret lines before it)
    exc_line = next((l for l in exc_only if l == name or l.startswith(name + ':')), exc_only[-1])
    frames = frames_of(exc)
    stdlib = [f for f in frames if f['stdlib']]
    return {
        'class': name,
        'exceptionLineText': exc_line,
        'exceptionOnlyLines': len(exc_only),
        'linesAfterExceptionLine': len(exc_only) - 1 - exc_only.index(exc_line),
        'frames': frames,
        'raise': ({'file': stdlib[-1]['file'], 'line': stdlib[-1]['line'], 'function': stdlib[-1]['function']} if stdlib else None),
        'lastFrameInStdlib': bool(frames) and frames[-1]['stdlib'],
        'chain': chain_of(exc),
    }


def record(exc, how):
    d = describe(exc)
    d['how'] = how
    with open(os.environ['CORPUS_TRUTH'], 'a', encoding='utf-8') as f:
        f.write(json.dumps(d) + '\n')


def _sys_hook(t, v, tb):
    sys.__excepthook__(t, v, tb)
    sys.stderr.flush()
    record(v, 'uncaught')


def _thread_hook(args):
    threading.__excepthook__(args)
    sys.stderr.flush()
    record(args.exc_value, 'thread')


if os.environ.get('CORPUS_TRUTH'):
    sys.excepthook = _sys_hook
    threading.excepthook = _thread_hook


def fixed_clock_logging(name='app', fmt='%(asctime)s %(levelname)s %(name)s: %(message)s'):
    """logging.basicConfig-style setup whose timestamps come from $CORPUS_CLOCK (seconds since
    the epoch, UTC) so that regenerating the corpus gives the same bytes."""
    import logging
    import time

    base = float(os.environ.get('CORPUS_CLOCK', '1796115601.123'))

    class Clock(logging.Filter):
        n = 0

        def filter(self, rec):
            rec.created = base + 0.007 * Clock.n
            rec.msecs = int((rec.created - int(rec.created)) * 1000)
            Clock.n += 1
            return True

    h = logging.StreamHandler(sys.stderr)
    fm = logging.Formatter(fmt)
    fm.converter = time.gmtime
    h.setFormatter(fm)
    h.addFilter(Clock())
    root = logging.getLogger()
    root.handlers[:] = [h]
    root.setLevel(logging.INFO)
    return logging.getLogger(name)
