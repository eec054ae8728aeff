"""Small programs that fail inside the Python standard library (run by make_python_tracebacks.py).

Each case is (name, form, body). `body` is the body of `main()`; DATA is a scratch folder with
a few prepared files (see make_python_tracebacks.py). Forms:
  plain    uncaught: Python's own traceback on stderr
  logging  caught and logged with logging.exception (prefixed first line, raw traceback lines)
  syslog   uncaught, and every stderr line prefixed the way journald / syslog forwarders print
           each line as its own message ("Dec  1 09:00:01 web-1 worker[4242]: ")
  ansi     uncaught, piped through Pygments' traceback lexer (python3 -m pygments -l pytb)
  thread   raised in a threading.Thread ("Exception in thread …" header)
"""

CASES = [
    ('subprocess_check_call', 'plain', """
import subprocess
subprocess.check_call(['false'])
"""),
    ('subprocess_check_output', 'logging', """
import subprocess
subprocess.check_output(['sh', '-c', 'exit 3'])
"""),
    ('subprocess_timeout', 'plain', """
import subprocess
subprocess.run(['sleep', '5'], timeout=0.2)
"""),
    ('subprocess_missing_program', 'syslog', """
import subprocess
subprocess.run(['/usr/bin/no-such-program-x'])
"""),
    ('shutil_unpack_unknown', 'plain', """
import shutil
shutil.unpack_archive(DATA + '/backup.bin', DATA + '/out')
"""),
    ('shutil_unpack_bad_format', 'logging', """
import shutil
shutil.unpack_archive(DATA + '/notzip.zip', DATA + '/out', format='rar')
"""),
    ('json_loads_bad', 'plain', """
import json
json.loads('{"a": 1,}')
"""),
    ('json_load_empty', 'ansi', """
import json
with open(DATA + '/empty.json') as f:
    json.load(f)
"""),
    ('json_dumps_object', 'logging', """
import json
json.dumps({'when': object()})
"""),
    ('configparser_no_section', 'plain', """
import configparser
cp = configparser.ConfigParser()
cp.read_string('[a]\\nx = 1\\n')
cp.get('b', 'x')
"""),
    ('configparser_no_option', 'syslog', """
import configparser
cp = configparser.ConfigParser()
cp.read_string('[db]\\nhost = localhost\\n')
cp.get('db', 'port')
"""),
    ('configparser_duplicate_section', 'logging', """
import configparser
configparser.ConfigParser().read_string('[a]\\nx = 1\\n[a]\\ny = 2\\n')
"""),
    ('configparser_interpolation', 'ansi', """
import configparser
cp = configparser.ConfigParser()
cp.read_string('[paths]\\nhome = %(base)s/home\\n')
cp.get('paths', 'home')
"""),
    ('ipaddress_bad', 'plain', """
import ipaddress
ipaddress.ip_address('999.1.1.1')
"""),
    ('ipaddress_host_bits', 'logging', """
import ipaddress
ipaddress.ip_network('10.0.0.1/24')
"""),
    ('zipfile_not_zip', 'plain', """
import zipfile
zipfile.ZipFile(DATA + '/notzip.zip')
"""),
    ('zipfile_missing_member', 'syslog', """
import zipfile
with zipfile.ZipFile(DATA + '/good.zip') as z:
    z.getinfo('config.yaml')
"""),
    ('calendar_bad_month', 'plain', """
import calendar
calendar.monthrange(2024, 13)
"""),
    ('calendar_bad_weekday', 'ansi', """
import calendar
calendar.TextCalendar(firstweekday=0).formatweekday(9, 3)
"""),
    ('plistlib_junk', 'plain', """
import plistlib
plistlib.loads(b'this is not a plist')
"""),
    ('queue_get_nowait', 'plain', """
import queue
queue.Queue().get_nowait()
"""),
    ('queue_put_full', 'logging', """
import queue
q = queue.Queue(maxsize=1)
q.put_nowait(1)
q.put_nowait(2)
"""),
    ('int_parse', 'plain', """
int('x')
"""),
    ('strptime_mismatch', 'plain', """
import datetime
datetime.datetime.strptime('2026-13-01', '%Y-%m-%d')
"""),
    ('strptime_unconverted', 'syslog', """
import datetime
datetime.datetime.strptime('2026-12-01 09:00', '%Y-%m-%d')
"""),
    ('urlsplit_ipv6', 'plain', """
import urllib.parse
urllib.parse.urlsplit('http://[::1/index.html')
"""),
    ('urlencode_int', 'plain', """
import urllib.parse
urllib.parse.urlencode(1)
"""),
    ('urlopen_refused', 'logging', """
import urllib.request
urllib.request.urlopen('http://127.0.0.1:9/health', timeout=2)
"""),
    ('urlopen_missing_file', 'plain', """
import urllib.request
urllib.request.urlopen('file:///nonexistent/report.csv')
"""),
    ('tarfile_not_tar', 'plain', """
import tarfile
tarfile.open(DATA + '/backup.bin')
"""),
    ('tarfile_missing_member', 'ansi', """
import tarfile
with tarfile.open(DATA + '/good.tar') as t:
    t.getmember('etc/app.conf')
"""),
    ('csv_dictwriter_extra', 'plain', """
import csv, io
csv.DictWriter(io.StringIO(), fieldnames=['id', 'name']).writerow({'id': 1, 'email': 'a@b'})
"""),
    ('csv_sniff', 'logging', """
import csv
csv.Sniffer().sniff('')
"""),
    ('base64_padding', 'plain', """
import base64
base64.b64decode('abc')
"""),
    ('base32_bad', 'syslog', """
import base64
base64.b32decode('MZXW6===X')
"""),
    ('base16_bad', 'plain', """
import base64
base64.b16decode('zz')
"""),
    ('ssl_no_hostname', 'plain', """
import socket, ssl
ssl.create_default_context().wrap_socket(socket.socket())
"""),
    ('ssl_missing_cafile', 'logging', """
import ssl
ssl.create_default_context(cafile='/etc/ssl/no-such-ca.pem')
"""),
    ('ssl_handshake_plain_server', 'plain', """
import socket, ssl, threading
srv = socket.socket()
srv.bind(('127.0.0.1', 0))
srv.listen(1)
def serve():
    c, _ = srv.accept()
    c.sendall(b'HTTP/1.0 200 OK\\r\\n\\r\\nnot tls\\r\\n')
    c.close()
threading.Thread(target=serve, daemon=True).start()
ctx = ssl.create_default_context()
with socket.create_connection(srv.getsockname()) as s:
    ctx.wrap_socket(s, server_hostname='localhost')
"""),
    ('socket_refused', 'plain', """
import socket
socket.create_connection(('127.0.0.1', 9), timeout=2)
"""),
    ('http_client_refused', 'syslog', """
import http.client
c = http.client.HTTPConnection('127.0.0.1', 9, timeout=2)
c.request('GET', '/')
"""),
    ('enum_bad_value', 'plain', """
import enum
class Color(enum.Enum):
    RED = 1
Color(5)
"""),
    ('zoneinfo_missing', 'plain', """
import zoneinfo
zoneinfo.ZoneInfo('Nowhere/City')
"""),
    ('asyncio_timeout', 'plain', """
import asyncio
async def fetch():
    await asyncio.wait_for(asyncio.sleep(1), 0.01)
asyncio.run(fetch())
"""),
    ('uuid_bad', 'logging', """
import uuid
uuid.UUID('not-a-uuid')
"""),
    ('fractions_bad', 'plain', """
import fractions
fractions.Fraction('1/x')
"""),
    ('statistics_empty', 'ansi', """
import statistics
statistics.mean([])
"""),
    ('shlex_unclosed', 'plain', """
import shlex
shlex.split('echo "unterminated')
"""),
    ('string_template_missing', 'logging', """
import string
string.Template('Hello $name').substitute({})
"""),
    ('re_unbalanced', 'plain', """
import re
re.compile('(a|b')
"""),
    ('ast_literal_eval', 'plain', """
import ast
ast.literal_eval('{"a": 1')
"""),
    ('tomllib_bad', 'syslog', """
import tomllib
tomllib.loads('name = ')
"""),
    ('gzip_not_gzip', 'plain', """
import gzip
gzip.decompress(b'plain text, not gzip')
"""),
    ('wave_not_riff', 'logging', """
import wave
wave.open(DATA + '/notzip.zip')
"""),
    ('email_bad_date', 'plain', """
import email.utils
email.utils.parsedate_to_datetime('yesterday-ish')
"""),
    ('getopt_unknown', 'plain', """
import getopt
getopt.getopt(['-x'], 'ab')
"""),
    ('cookie_illegal_key', 'ansi', """
import http.cookies
c = http.cookies.SimpleCookie()
c['bad key'] = 'v'
"""),
    ('namedtuple_duplicate', 'plain', """
import collections
collections.namedtuple('Point', 'x x')
"""),
    ('random_empty', 'logging', """
import random
random.choice([])
"""),
    ('pathlib_relative_to', 'plain', """
import pathlib
pathlib.PurePosixPath('/srv/app/logs').relative_to('/var')
"""),
    ('pathlib_read_missing', 'syslog', """
import pathlib
pathlib.Path('/srv/app/config/settings.ini').read_text()
"""),
    ('logging_config_no_version', 'plain', """
import logging.config
logging.config.dictConfig({'handlers': {}})
"""),
    ('dataclass_mutable_default', 'plain', """
import dataclasses
@dataclasses.dataclass
class Job:
    tags: list = []
"""),
    ('xml_etree_unclosed', 'logging', """
import xml.etree.ElementTree as ET
ET.fromstring('<config><item>')
"""),
    ('sqlite_no_table', 'plain', """
import sqlite3
sqlite3.connect(':memory:').execute('select * from jobs')
"""),
    ('locale_unsupported', 'plain', """
import locale
locale.setlocale(locale.LC_ALL, 'xx_XX.UTF-8')
"""),
    ('concurrent_future_error', 'plain', """
import concurrent.futures, json
with concurrent.futures.ThreadPoolExecutor(1) as ex:
    ex.submit(json.loads, '[1, 2').result()
"""),
    ('multiprocessing_pool_error', 'plain', """
import multiprocessing, calendar
with multiprocessing.Pool(1) as p:
    p.apply(calendar.monthrange, (2024, 0))
"""),
    ('thread_queue_empty', 'thread', """
import queue
queue.Queue().get(timeout=0.01)
"""),
    ('thread_ipaddress', 'thread', """
import ipaddress
ipaddress.IPv4Address('10.0.0.300')
"""),
    # chained in the program itself: a handler that fails, and an explicit "raise … from"
    ('chain_during_handling', 'plain', """
import json, calendar
try:
    json.loads('{bad json}')
except ValueError:
    calendar.monthrange(2024, 13)
"""),
    ('chain_direct_cause', 'logging', """
import plistlib
try:
    plistlib.loads(b'settings: not a plist')
except plistlib.InvalidFileException as e:
    raise RuntimeError('could not read settings.plist') from e
"""),
    ('chain_context_stdlib', 'syslog', """
import zipfile, tarfile
try:
    zipfile.ZipFile(DATA + '/backup.bin')
except zipfile.BadZipFile:
    tarfile.open(DATA + '/backup.bin')
"""),
]

# pytest-style failures: each is a test function body run under pytest (see make_python_tracebacks.py)
PYTEST_CASES = [
    ('test_config_section', """
import configparser
cp = configparser.ConfigParser()
cp.read_string('[a]\\nx = 1\\n')
assert cp.get('b', 'x') == '1'
"""),
    ('test_month_range', """
import calendar
assert calendar.monthrange(2024, 13)[1] == 31
"""),
    ('test_parse_payload', """
import json
assert json.loads('{"id": 7') == {'id': 7}
"""),
    ('test_address', """
import ipaddress
assert ipaddress.ip_address('256.0.0.1').is_private
"""),
    ('test_queue_drained', """
import queue
q = queue.Queue()
assert q.get_nowait() is None
"""),
    ('test_archive', """
import zipfile
zipfile.ZipFile(DATA + '/notzip.zip').namelist()
"""),
    ('test_timestamp', """
import datetime
datetime.datetime.strptime('01/12/2026', '%Y-%m-%d')
"""),
    ('test_run_tool', """
import subprocess
subprocess.run(['sh', '-c', 'exit 2'], check=True)
"""),
]
