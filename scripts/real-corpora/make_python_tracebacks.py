#!/usr/bin/python3.11
"""Produce test/fixtures/real/python-tracebacks.log and its truth file by running real failing
programs with this machine's Debian Python (/usr/bin/python3.11, whose standard library is the
/usr/lib/python3.11 that `error-explainer extract` reads). Needs no network.

    /usr/bin/python3.11 scripts/real-corpora/make_python_tracebacks.py [OUT_DIR]

Every traceback is printed by Python itself (sys.excepthook, threading.excepthook,
logging.exception, pytest); the truth (class, exception line, raising frame, frames, chain) comes
from the exception object via corpus_hook.py, and its line numbers are then located in the
assembled log (and checked: every frame and the exception line must be found where expected).
Ordinary log lines (deterministic, seeded) are interleaved between the tracebacks.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'test', 'fixtures', 'real')
PY = '/usr/bin/python3.11'
STDLIB = '/usr/lib/python3.11'
# a fixed folder, so that the paths printed in the tracebacks are the same on every run
WORK = '/tmp/ee-corpus/python'
APP = os.path.join(WORK, 'app')
DATA = os.path.join(WORK, 'data')
# pytest lives in pyenv's site-packages on this machine; Debian's python can import it (pure Python)
PYTEST_SITE = '/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages'
PYTEST_PKGS = ['_pytest', 'pytest', 'pluggy', 'iniconfig', 'packaging', 'py.py',
               'pytest-9.0.3.dist-info', 'pluggy-1.6.0.dist-info', 'iniconfig-2.3.0.dist-info', 'packaging-26.2.dist-info']

sys.path.insert(0, HERE)
from python_cases import CASES, PYTEST_CASES  # noqa: E402

# no address-space randomisation: object addresses that pytest prints (0x7ffff…) stay the same
SETARCH = ['setarch', 'x86_64', '-R'] if shutil.which('setarch') else []
ANSI = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')
BASE_CLOCK = 1796115601  # 2026-12-01 09:00:01 UTC


def strip_ansi(s):
    return ANSI.sub('', s)


def prepare():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.join(APP, 'jobs'))
    os.makedirs(DATA)
    rnd = random.Random(7)
    with open(os.path.join(DATA, 'backup.bin'), 'wb') as f:
        f.write(bytes(rnd.randrange(256) for _ in range(2048)))
    with open(os.path.join(DATA, 'notzip.zip'), 'w') as f:
        f.write('this file is a text file, not an archive\n' * 20)
    open(os.path.join(DATA, 'empty.json'), 'w').close()
    with zipfile.ZipFile(os.path.join(DATA, 'good.zip'), 'w') as z:
        z.writestr(zipfile.ZipInfo('README.txt', (2026, 12, 1, 9, 0, 0)), 'hello\n')
    with tarfile.open(os.path.join(DATA, 'good.tar'), 'w') as t:
        info = tarfile.TarInfo('README.txt')
        info.size = 6
        info.mtime = BASE_CLOCK
        import io
        t.addfile(info, io.BytesIO(b'hello\n'))


def program(name, form, body, job):
    body = body.strip('\n')
    ind = '\n'.join('    ' + l if l else l for l in body.split('\n'))
    head = f'import corpus_hook\n\nDATA = {DATA!r}\n\n\ndef main():\n{ind}\n\n\n'
    if form == 'logging':
        return head + (
            "log = corpus_hook.fixed_clock_logging('worker')\n"
            "try:\n    main()\nexcept Exception as exc:\n"
            f"    log.exception('job %s failed: %s', {job}, {name!r})\n"
            "    corpus_hook.record(exc, 'logging')\n")
    if form == 'thread':
        return head + (
            'import threading\n\n'
            f"t = threading.Thread(target=main, name='worker-{job}')\n"
            't.start()\nt.join()\n')
    return head + "if __name__ == '__main__':\n    main()\n"


def run_case(name, form, body, job, clock):
    path = os.path.join(APP, 'jobs', f'{name}.py')
    with open(path, 'w') as f:
        f.write(program(name, form, body, job))
    truth_file = os.path.join(WORK, 'truth.jsonl')
    if os.path.exists(truth_file):
        os.remove(truth_file)
    env = {'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8', 'PYTHONPATH': HERE, 'PYTHONDONTWRITEBYTECODE': '1',
           'CORPUS_TRUTH': truth_file, 'CORPUS_CLOCK': str(clock), 'HOME': WORK}
    p = subprocess.run(SETARCH + [PY, path], cwd=APP, env=env, capture_output=True, text=True, timeout=60)
    with open(truth_file) as f:
        truths = [json.loads(l) for l in f]
    assert len(truths) == 1, (name, truths, p.stderr)
    out = p.stderr
    lines = out.rstrip('\n').split('\n')
    plain = list(lines)
    if form == 'ansi':
        col = subprocess.run([PY, '-m', 'pygments', '-l', 'pytb', '-f', 'terminal'], input=out, capture_output=True, text=True, check=True).stdout
        lines = col.rstrip('\n').split('\n')
        assert [strip_ansi(l) for l in lines] == plain, name
    elif form == 'syslog':
        t = clock - BASE_CLOCK
        prefix = f'Dec  1 {9 + t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d} web-1 worker[{4200 + job % 100}]: '
        lines = [prefix + l for l in lines]
    return lines, plain, truths[0]


def locate(name, form, plain, truth, start):
    """Line numbers (1-based, in the whole log) of the block, its exception line and frames."""
    n = len(plain)
    first_ok = plain[0].startswith('Traceback (most recent call last):') or plain[0].startswith('Exception in thread ') \
        or (form == 'logging' and ' ERROR worker: job ' in plain[0]) \
        or plain[0].startswith(truth['chain'][0]['class'] + ':')  # an exception without a traceback (multiprocessing's RemoteTraceback)
    assert first_ok, (name, plain[0])
    exc_idx = n - 1 - truth['linesAfterExceptionLine']
    assert plain[exc_idx] == truth['exceptionLineText'], (name, plain[exc_idx], truth['exceptionLineText'])
    # the final exception's frames, below its own "Traceback" header
    hdr = max(i for i in range(exc_idx) if plain[i] == 'Traceback (most recent call last):')
    k = hdr
    frames = []
    for fr in truth['frames']:
        fname = os.path.join(STDLIB, fr['file']) if fr['stdlib'] else fr['file']
        want = f'  File "{fname}", line {fr["line"]}, in {fr["function"]}'
        while k < exc_idx and plain[k] != want:
            k += 1
        assert k < exc_idx, (name, want)
        frames.append({**fr, 'logLine': start + k})
        k += 1
    rs = truth['raise']
    raise_ = None
    if rs:
        fr = [f for f in frames if f['stdlib']][-1]
        raise_ = {**rs, 'logLine': fr['logLine']}
    return {
        'id': name,
        'form': form,
        'firstLine': start,
        'lastLine': start + n - 1,
        'exceptionLine': start + exc_idx,
        'exceptionLineText': truth['exceptionLineText'],
        'class': truth['class'],
        'raise': raise_,
        'lastFrameInStdlib': truth['lastFrameInStdlib'],
        'chain': truth['chain'],
        'frames': frames,
    }


NOISE_APP = [
    'INFO worker: job {job} started (queue=default, attempt 1)',
    'INFO http: GET /api/orders/{job} 200 12ms',
    'INFO http: POST /api/jobs 201 48ms',
    'WARNING worker: job {job} is slow: 3.2s > 2.0s',
    'ERROR worker: job {job} failed',
    'ERROR scheduler: job {job} failed after 3 attempts, giving up',
    'INFO worker: job {job} done in 0.41s',
    'WARNING db: connection pool at 90% (18/20)',
    'ERROR http: upstream returned 502 for /api/pay (attempt 2/3)',
    'INFO cache: 1204 keys, hit ratio 0.93',
    'CRITICAL disk: /var is 97% full',
    'ERROR mailer: could not deliver report for job {job}, will retry',
    'INFO worker: shutting down idle worker w-3',
    'WARNING auth: token for user 42 expires in 5 minutes',
]
NOISE_SYSLOG = [
    'web-1 systemd[1]: Started worker.service - Background worker.',
    'web-1 CRON[{pid}]: (root) CMD (run-parts /etc/cron.hourly)',
    'web-1 worker[{pid}]: job {job} started',
    'web-1 worker[{pid}]: ERROR job {job} failed',
    'web-1 kernel: [12345.678901] TCP: request_sock_TCP: Possible SYN flooding on port 8080. Sending cookies.',
    'web-1 systemd[1]: worker.service: Main process exited, code=exited, status=1/FAILURE',
    'web-1 systemd[1]: worker.service: Failed with result \'exit-code\'.',
]


_ms = [0]


def noise(rnd, clock, job, syslog):
    """One ordinary log line at `clock` (milliseconds increase within the second)."""
    t = clock - BASE_CLOCK
    _ms[0] = min(999, _ms[0] + rnd.randrange(1, 120)) if _ms[0] < 880 else _ms[0]
    if syslog:
        s = rnd.choice(NOISE_SYSLOG).format(job=job, pid=4200 + job % 100)
        return f'Dec  1 {9 + t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d} {s}'
    s = rnd.choice(NOISE_APP).format(job=job)
    ms = _ms[0]
    return f'2026-12-01 {9 + t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d},{ms:03d} {s}'


def pytest_section(log, blocks, rnd, clock):
    """Run the PYTEST_CASES under pytest (plain and coloured) and append its real output."""
    lib = os.path.join(WORK, 'pylib')
    os.makedirs(lib, exist_ok=True)
    for p in PYTEST_PKGS:
        os.symlink(os.path.join(PYTEST_SITE, p), os.path.join(lib, p))
    tests = os.path.join(APP, 'tests')
    os.makedirs(tests, exist_ok=True)
    with open(os.path.join(tests, 'test_jobs.py'), 'w') as f:
        f.write(f'DATA = {DATA!r}\n')
        for name, body in PYTEST_CASES:
            ind = '\n'.join('    ' + l if l else l for l in body.strip('\n').split('\n'))
            f.write(f'\n\ndef {name}():\n{ind}\n')
    with open(os.path.join(tests, 'conftest.py'), 'w') as f:
        f.write(
            'import json, os\nimport pytest\nimport corpus_hook\n\n\n'
            '@pytest.hookimpl(hookwrapper=True)\n'
            'def pytest_runtest_makereport(item, call):\n'
            '    yield\n'
            "    if call.when == 'call' and call.excinfo is not None:\n"
            '        d = corpus_hook.describe(call.excinfo.value)\n'
            "        d['test'] = item.name\n"
            "        with open(os.environ['CORPUS_TRUTH'], 'a') as f:\n"
            "            f.write(json.dumps(d) + '\\n')\n")
    for color, tb in (('no', 'long'), ('yes', 'short')):
        truth_file = os.path.join(WORK, 'truth.jsonl')
        if os.path.exists(truth_file):
            os.remove(truth_file)
        env = {'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8', 'PYTHONPATH': f'{HERE}:{lib}', 'PYTHONDONTWRITEBYTECODE': '1',
               'CORPUS_TRUTH': truth_file, 'HOME': WORK, 'COLUMNS': '100', 'PY_COLORS': '1' if color == 'yes' else '0'}
        p = subprocess.run(SETARCH + [PY, '-m', 'pytest', '-p', 'no:cacheprovider', f'--color={color}', f'--tb={tb}', '-q', '-rf', 'tests'],
                           cwd=APP, env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 1, p.stdout + p.stderr
        with open(truth_file) as f:
            truths = {t['test']: t for t in map(json.loads, f)}
        out = [l for l in p.stdout.rstrip('\n').split('\n')]
        # the run's timing ("8 failed in 0.21s") differs on every run: keep the line, fix the number
        out = [re.sub(r' in \d+\.\d+s', ' in 0.50s', l) for l in out]
        log.append(noise(rnd, clock, 2000, False).split(' ', 3)[0] + ' 09:30:00,000 INFO ci: running pytest tests/ (--color=%s --tb=%s)' % (color, tb))
        start = len(log) + 1
        log.extend(out)
        plain = [strip_ansi(l) for l in out]
        heads = [i for i, l in enumerate(plain) if re.match(r'^_{3,} (test_\w+) _{3,}$', l)]
        summary = next(i for i, l in enumerate(plain) if re.match(r'^=+ short test summary info =+$', l))
        for j, h in enumerate(heads):
            test = re.match(r'^_{3,} (test_\w+) _{3,}$', plain[h]).group(1)
            end = (heads[j + 1] if j + 1 < len(heads) else summary) - 1
            while not plain[end].strip():
                end -= 1
            t = truths[test]
            want = t['exceptionLineText']
            exc = [i for i in range(h, end + 1) if re.match(r'^E\s+', plain[i]) and re.sub(r'^E\s+', '', plain[i]) == want]
            assert exc, (test, want)
            # pytest prints frames as "path:line: in function" (short) or "path:line: Class" (long)
            frames = []
            k = h
            for fr in t['frames']:
                fname = os.path.join(STDLIB, fr['file']) if fr['stdlib'] else fr['file']
                pat = f'{fname}:{fr["line"]}:'
                while k <= end and not plain[k].startswith(pat):
                    k += 1
                if k > end:  # pytest hides its own frames and may cut repeated ones: keep those it printed
                    k = h
                    frames.append({**fr, 'logLine': None})
                    continue
                frames.append({**fr, 'logLine': start + k})
            std = [f for f in frames if f['stdlib']]
            sl = next((i for i, l in enumerate(plain) if l.startswith('FAILED ') and f'::{test} - ' in l), None)
            blocks.append({
                'id': f'pytest_{color}color_{test}',
                'form': 'pytest-ansi' if color == 'yes' else 'pytest',
                'firstLine': start + h,
                'lastLine': start + end,
                'exceptionLine': start + exc[-1],
                'exceptionLineText': t['exceptionLineText'],
                'class': t['class'],
                'raise': ({**t['raise'], 'logLine': std[-1]['logLine']} if t['raise'] else None),
                'lastFrameInStdlib': t['lastFrameInStdlib'],
                'chain': t['chain'],
                'frames': frames,
                'summaryLine': start + sl if sl is not None else None,
            })


def main():
    prepare()
    rnd = random.Random(1003)
    log = []
    blocks = []
    noise_lines = []
    clock = BASE_CLOCK
    for i, (name, form, body) in enumerate(CASES):
        job = 1003 + i
        for _ in range(rnd.randrange(1, 5)):
            log.append(noise(rnd, clock, job, form == 'syslog'))
            noise_lines.append(len(log))
        clock += rnd.randrange(1, 20)
        _ms[0] = 0
        lines, plain, truth = run_case(name, form, body, job, clock)
        start = len(log) + 1
        log.extend(lines)
        blocks.append(locate(name, form, plain, truth, start))
        clock += 1
    pytest_section(log, blocks, rnd, clock)
    for _ in range(3):
        log.append(noise(rnd, clock, 9999, False))
        noise_lines.append(len(log))
    text = '\n'.join(log) + '\n'
    # the paths of this machine are part of the data; nothing else may vary between runs
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, 'python-tracebacks.log'), 'w') as f:
        f.write(text)
    truth = {
        'description': 'Real Python tracebacks from failing standard-library calls; see README.md',
        'generator': 'scripts/real-corpora/make_python_tracebacks.py',
        'python': subprocess.run([PY, '-c', 'import sys; print(sys.version.split()[0])'], capture_output=True, text=True).stdout.strip(),
        'stdlib': STDLIB,
        'lines': len(log),
        'lineNumbers': '1-based',
        'raiseFileRelativeTo': STDLIB,
        'noiseLines': noise_lines,
        'blocks': blocks,
    }
    with open(os.path.join(OUT, 'python-tracebacks.truth.json'), 'w') as f:
        f.write(json.dumps(truth, indent=1) + '\n')
    print(f'{len(blocks)} tracebacks, {len(log)} lines -> {OUT}/python-tracebacks.log', file=sys.stderr)


if __name__ == '__main__':
    main()
