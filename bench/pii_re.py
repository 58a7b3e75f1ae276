#!/usr/bin/env python3
"""The baseline for bench/pii_scan.c: the same patterns (written by it) run
with Python's `re` over the same text, one finditer per pattern, no
validators. Usage: pii_re.py TEXT PATTERNS C_MB_PER_S"""
import json
import re
import sys
import time

text = open(sys.argv[1], "rb").read()
pats = json.load(open(sys.argv[2]))
c_rate = float(sys.argv[3])
total, found = 0.0, {}
for name, p in pats.items():
    rx = re.compile(p.encode())
    t = time.process_time()
    found[name] = sum(1 for _ in rx.finditer(text))
    total += time.process_time() - t
mb = len(text) / 1e6
rate = mb / total
print(f"python re: {mb:.1f} MB in {total:.2f} s = {rate:.1f} MB/s (CPU time; the {len(pats)} patterns, "
      f"no validators); matches {found}")
print(f"mcpfs pii scan is {c_rate / rate:.1f}x Python's re")
