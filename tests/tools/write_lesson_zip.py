#!/usr/bin/env python3
"""Writes a lesson file (a zip) for the lesson-file suites, good or hostile.

Usage: write_lesson_zip.py LESSON_FOLDER OUT.ampscope-lesson PREFIX METHOD HOSTILE

Zips LESSON_FOLDER's files into OUT with names under PREFIX (a folder name ending in
"/", or "" for the top), deflated (METHOD "deflate") or stored ("store"), with Python's
zipfile: an implementation of the zip format independent of AmpScope's. Then makes it
HOSTILE ("none" for a good one): writing members zipfile allows but a lesson may not
hold (climb, absolute, backslash, dot, symlink, twice, many), or changing, after
zipfile wrote them, fields of the central directory (APPNOTE.TXT 4.3.12) and of the end
record (4.3.16): bomb (a member declared 1000 bytes that inflates to 4 MiB), huge (one
declared 600 MiB), sum (two declared 300 MiB each), crc, encrypted, method (12: bzip2),
zip64, cut (the first half of the file), no-scenario (scenario.json left out).
"""
import os, struct, sys, warnings, zipfile
src, out, prefix, method, hostile = sys.argv[1:6]
warnings.simplefilter('ignore')
kind = zipfile.ZIP_DEFLATED if method == 'deflate' else zipfile.ZIP_STORED
with zipfile.ZipFile(out, 'w', kind) as z:
    for root, dirs, files in os.walk(src):
        for f in sorted(files):
            path = os.path.join(root, f)
            if hostile == 'no-scenario' and f == 'scenario.json':
                continue
            z.write(path, prefix + os.path.relpath(path, src))
    if hostile in ('climb', 'absolute', 'backslash', 'dot'):
        name = {'climb': prefix + '../evil.txt', 'absolute': '/evil.txt', 'backslash': prefix + 'a\\evil.txt',
                'dot': prefix + './evil.txt'}[hostile]
        z.writestr(name, 'x')
    if hostile == 'symlink':
        link = zipfile.ZipInfo(prefix + 'data/link')
        link.create_system = 3
        link.external_attr = 0o120777 << 16
        z.writestr(link, '/etc/passwd')
    if hostile == 'twice':
        z.writestr(prefix + 'narrative.md', 'another narrative')
    if hostile == 'many':
        for i in range(1025):
            z.writestr(prefix + 'many/%d' % i, '')
    if hostile in ('bomb', 'huge', 'crc', 'encrypted', 'method'):
        z.writestr(prefix + 'extra.bin', bytes(4 << 20), zipfile.ZIP_DEFLATED)
    if hostile == 'sum':
        z.writestr(prefix + 'a.bin', 'a')
        z.writestr(prefix + 'b.bin', 'b')
data = bytearray(open(out, 'rb').read())
end = data.rfind(b'PK\x05\x06')
count, size, offset = struct.unpack('<HII', data[end + 10:end + 20])
entries, at = {}, offset
for _ in range(count):
    n, e, c = struct.unpack('<HHH', data[at + 28:at + 34])
    entries[data[at + 46:at + 46 + n].decode()] = at
    at += 46 + n + e + c
def put(at, fmt, value):
    data[at:at + struct.calcsize(fmt)] = struct.pack(fmt, value)
extra = entries.get(prefix + 'extra.bin')
if hostile == 'bomb':
    put(extra + 24, '<I', 1000)
    local = struct.unpack('<I', data[extra + 42:extra + 46])[0]
    put(local + 22, '<I', 1000)
if hostile == 'huge':
    put(extra + 24, '<I', 600 << 20)
if hostile == 'sum':
    put(entries[prefix + 'a.bin'] + 24, '<I', 300 << 20)
    put(entries[prefix + 'b.bin'] + 24, '<I', 300 << 20)
if hostile == 'crc':
    put(extra + 16, '<I', struct.unpack('<I', data[extra + 16:extra + 20])[0] ^ 1)
if hostile == 'encrypted':
    put(extra + 8, '<H', 1)
if hostile == 'method':
    put(extra + 10, '<H', 12)
if hostile == 'zip64':
    put(end + 16, '<I', 0xFFFFFFFF)
if hostile == 'cut':
    data = data[:len(data) // 2]
open(out, 'wb').write(data)
