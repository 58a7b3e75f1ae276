#!/usr/bin/env python3
"""Writes the PII bench's text: @MB megabytes of mixed prose, code, log lines
and numbers (dates, amounts, versions, ids) with about one entity per KB,
each kind in turn. Deterministic. Usage: pii_text.py OUT [MB]"""
import random
import sys

R = random.Random(7)
WORDS = ("the of and to in is was for on that with as by at from this be are have it an "
         "not or which but had were all one their there been has when who will more no if "
         "out so said what up its about into than them can only other new some could time "
         "these two may then first any like now my such make over did even most after also "
         "account invoice shipment server request customer report update status").split()


def luhn(body):
    s = 0
    for i, ch in enumerate(reversed(body)):
        x = int(ch) * (2 if i % 2 == 0 else 1)
        s += x - 9 if x > 9 else x
    return body + str((10 - s % 10) % 10)


def iban():
    b = "".join(R.choice("0123456789") for _ in range(18))
    n = int("".join(str(int(c, 36)) for c in b + "DE00"))
    return f"DE{98 - n % 97:02d}{b}"


ENTITIES = [
    lambda: f"{R.choice(['ana', 'li', 'omar', 'kim'])}.{R.choice(['ray', 'diaz', 'berg'])}"
            f"{R.randint(1, 999)}@example.com",
    lambda: f"({R.randint(201, 989)}) {R.randint(200, 999)}-{R.randint(0, 9999):04d}",
    lambda: f"{R.randint(100, 665)}-{R.randint(10, 99)}-{R.randint(1000, 9999)}",
    lambda: luhn("4" + "".join(R.choice("0123456789") for _ in range(14))),
    lambda: ".".join(str(R.randint(1, 254)) for _ in range(4)),
    iban,
]

NOISE = [
    lambda: f"on {R.randint(2000, 2030)}-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}",
    lambda: f"v{R.randint(0, 9)}.{R.randint(0, 20)}.{R.randint(0, 99)}",
    lambda: f"${R.randint(1, 99999)}.{R.randint(0, 99):02d}",
    lambda: f"order #{R.randint(10000, 9999999)}",
    lambda: f"at {R.randint(0, 23):02d}:{R.randint(0, 59):02d}",
    lambda: f"{R.randint(1, 500)} items",
]


def paragraph(k):
    out, size = [], 0
    target = R.randint(900, 1100)
    ent_at = R.randint(0, target - 100)
    placed = False
    while size < target:
        if not placed and size >= ent_at:
            w = ENTITIES[k % len(ENTITIES)]()
            placed = True
        elif R.random() < 0.04:
            w = R.choice(NOISE)()
        else:
            w = R.choice(WORDS)
        out.append(w)
        size += len(w) + 1
        if R.random() < 0.07:
            out[-1] += "."
    return " ".join(out) + "\n"


def main():
    path = sys.argv[1]
    mb = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    pool = [paragraph(k) for k in range(6000)]
    total = mb << 20
    with open(path, "w") as f:
        n = 0
        while n < total:
            p = R.choice(pool)
            p = p[:total - n]
            f.write(p)
            n += len(p)


main()
