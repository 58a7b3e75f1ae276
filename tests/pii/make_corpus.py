#!/usr/bin/env python3
"""Writes tests/pii/corpus.jsonl: the labelled corpus test_pii_corpus.py scores.

One JSON object per line: {"text", "entities": [{"type", "value"}], "note"}.
Positives come in the formats people write; every kind has hard negatives that
a regex alone would take (Luhn-failing cards, SSNs from never-issued ranges,
IBANs with a wrong check digit or one character short, versions and OIDs
shaped like IPs, dates and order numbers shaped like phones, emails in URLs
and code). Check digits are computed here, independently of the C code.
Deterministic: `python3 tests/pii/make_corpus.py` rewrites the same file.
"""
import json
import random
import string
from pathlib import Path

R = random.Random(21)
OUT = Path(__file__).resolve().parent / "corpus.jsonl"
rows = []


def row(text, entities=(), note=""):
    rows.append({"text": text, "entities": [{"type": t, "value": v} for t, v in entities],
                 "note": note})


FIRST = ["john", "maria", "li", "ahmed", "sofia", "kwame", "olga", "raj", "emma", "noah",
         "yuki", "lucas", "fatima", "diego", "anna", "omar", "chloe", "ivan", "zoe", "mateo"]
LAST = ["smith", "garcia", "chen", "khan", "rossi", "mensah", "ivanova", "patel", "muller",
        "silva", "tanaka", "dubois", "nguyen", "kowalski", "okafor", "berg", "novak"]
DOMAINS = ["example.com", "mail.example.org", "corp.example.co.uk", "uni.example.edu",
           "example.io", "post.example.de", "example.travel", "shop.example.com.br",
           "xn--bcher-kva.example", "dept.example.gov"]
PROSE = ["Please contact {} about the renewal.", "Forwarded from {} yesterday.",
         "The account owner is {}; see ticket 4412.", "cc: {}", "Reply to <{}> by Friday.",
         '{{"user": {{"email": "{}", "active": true}}}}', "name,email\nJ. Doe,{}",
         "mailto:{}", "Contact: {}.", "Sent by {} (via the portal)"]


def email():
    f, l = R.choice(FIRST), R.choice(LAST)
    local = R.choice([f"{f}.{l}", f"{f}_{l}", f"{f}{R.randint(1, 99)}", f"{f[0]}{l}",
                      f"{f}.{l}+billing", f"{l}-{f}", f"{f.upper()}.{l}"])
    return f"{local}@{R.choice(DOMAINS)}"


for _ in range(170):
    e = email()
    row(R.choice(PROSE).format(e), [("EMAIL", e)], "email")

EMAIL_NEG = [
    "Use logo@2x.png for retina screens.", "npm install lodash@4.17.21 --save",
    "Read https://medium.com/@jane.doe/why-tokens-matter for more.",
    "<script src=\"https://cdn.example.com/npm/vue@3.2.47/dist/vue.js\"></script>",
    "ssh to deploy@localhost and restart.", "@Override public String toString()",
    "git clone git@github.com:acme/widgets.git", "@media (max-width: 600px) { body { } }",
    "mail admin@intranet when done", "x = a@b matrix product in numpy",
    "Open https://example.com/u/john.smith@example.com/edit in the admin.",
    "the handle is @maria_garcia on social", "pip install 'requests@https://x.example/r.zip'",
    "icon@3x.webp and banner@2x.jpg are in assets/", "user@example.c is not valid",
    "email: first..last@example.com (typo)", "a@b.123 looks odd", "decorate with @app.route('/')",
    "const re = /^[^@]+@[^@]+$/;", "Set the scope to @types/node@20.1.0",
]
for i in range(110):
    row(EMAIL_NEG[i % len(EMAIL_NEG)], [], "email-negative")


def nanp():
    area = R.choice([2, 3, 4, 5, 6, 7, 8]) * 100 + R.randint(0, 8) * 10 + R.randint(0, 9)
    while area % 100 == 11:
        area += 1
    ex = R.randint(2, 9) * 100 + R.randint(0, 9) * 10 + R.randint(0, 9)
    while ex % 100 == 11:
        ex += 1
    line = R.randint(0, 9999)
    a, b, c = f"{area:03d}", f"{ex:03d}", f"{line:04d}"
    return R.choice([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"+1 {a} {b} {c}",
                     f"1-{a}-{b}-{c}", f"+1-{a}-{b}-{c}", f"+1{a}{b}{c}", f"({a}){b}-{c}"])


INTL = ["+44 20 7946 0958", "+49 30 901820", "+33 1 42 68 53 00", "+81 3-1234-5678",
        "+61 2 9876 5432", "+91 98765 43210", "+34 912 345 678", "+39 06 1234 5678",
        "+55 11 91234-5678", "+27 21 123 4567", "+353 1 234 5678", "+46 8 123 456 78"]
PHONE_CTX = ["Call me at {}.", "Phone: {}", "Mobile {} (after 6pm)", "tel {} ext. 12",
             '{{"phone": "{}"}}', "Reach support on {} any time.", "Fax: {}"]
for i in range(170):
    p = nanp() if i % 3 else R.choice(INTL)
    row(R.choice(PHONE_CTX).format(p), [("PHONE", p)], "phone")

PHONE_NEG = [
    "Shipped on 2024-01-15 at 10:30:00.", "Invoice date 15.01.2024, due 14.02.2024.",
    "Order #4155552671 is on its way.", "Your order number is 8005551234.",
    "Ref ORD-415-555-2671 in the portal.", "Meeting on 12/25/2023 at 3pm.",
    "ISBN 978-3-16-148410-0", "Timestamp 1700000000 in the log.",
    "Tracking 1Z999AA10123456784", "ZIP 94105-1234, suite 200", "Build 2023.12.25.1042",
    "Call (123) 456-7890 is not a real number.", "Dial 911 in an emergency.",
    "Range 2000-2024 was covered.", "Lot 555-12-34 of the auction", "PO 2024-000123-07",
    "Serial 12-3456-7890-12", "Coordinates 40.7128, -74.0060",
]
for i in range(110):
    row(PHONE_NEG[i % len(PHONE_NEG)], [], "phone-negative")


def ssn_parts():
    area = R.choice([R.randint(1, 665), R.randint(667, 899)])
    return area, R.randint(1, 99), R.randint(1, 9999)


SSN_CTX = ["SSN: {}", "Social security number {} on file.", "ssn={}", '{{"ssn": "{}"}}',
           "Applicant {} verified."]
for _ in range(150):
    a, g, s = ssn_parts()
    if (a, g, s) in ((78, 5, 1120), (219, 9, 9999)):
        continue
    d = R.choice(["-", " "])
    v = f"{a:03d}{d}{g:02d}{d}{s:04d}"
    row(R.choice(SSN_CTX).format(v), [("SSN", v)], "ssn")

for i in range(120):
    a, g, s = ssn_parts()
    kind = i % 6
    if kind == 0:
        v = f"000-{g:02d}-{s:04d}"
    elif kind == 1:
        v = f"666-{g:02d}-{s:04d}"
    elif kind == 2:
        v = f"{R.randint(900, 999)}-{g:02d}-{s:04d}"
    elif kind == 3:
        v = f"{a:03d}-00-{s:04d}"
    elif kind == 4:
        v = f"{a:03d}-{g:02d}-0000"
    else:
        v = R.choice([f"{a:03d}-{g:02d} {s:04d}", f"{a:03d} {g:02d}-{s:04d}", "078-05-1120"])
    row(R.choice(SSN_CTX).format(v), [], "ssn-negative")


def luhn_digit(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        x = int(ch)
        if i % 2 == 0:
            x *= 2
            if x > 9:
                x -= 9
        total += x
    return str((10 - total % 10) % 10)


def luhn_ok(num):
    return luhn_digit(num[:-1]) == num[-1]


CARD_PREFIXES = [("4", 16), ("4", 13), ("51", 16), ("55", 16), ("2221", 16), ("2720", 16),
                 ("34", 15), ("37", 15), ("6011", 16), ("65", 16), ("3530", 16), ("36", 14),
                 ("62", 16), ("4", 19)]


def card_number(prefix, length):
    body = prefix + "".join(R.choice(string.digits) for _ in range(length - len(prefix) - 1))
    return body + luhn_digit(body)


def fmt_card(num, sep):
    if len(num) == 15 and num[0] == "3" and num[1] in "47":
        groups = [num[:4], num[4:10], num[10:]]
    else:
        groups = [num[i:i + 4] for i in range(0, len(num), 4)]
    return sep.join(groups)


CARD_CTX = ["Card {} exp 09/27", "Charged to {}.", "cc_number: {}", '{{"card": "{}"}}',
            "Please refund {} today."]
for _ in range(170):
    num = card_number(*R.choice(CARD_PREFIXES))
    v = fmt_card(num, R.choice(["", " ", "-"]))
    row(R.choice(CARD_CTX).format(v), [("CREDIT_CARD", v)], "card")

for i in range(120):
    prefix, length = R.choice(CARD_PREFIXES)
    num = card_number(prefix, length)
    kind = i % 4
    if kind == 0:  # Luhn fails
        last = str((int(num[-1]) + R.randint(1, 9)) % 10)
        v = fmt_card(num[:-1] + last, R.choice(["", " ", "-"]))
    elif kind == 1:  # no issuer starts with 9 or 1
        body = R.choice("19") + "".join(R.choice(string.digits) for _ in range(14))
        v = fmt_card(body + luhn_digit(body), " ")
    elif kind == 2:  # mixed separators
        g = fmt_card(num, " ").split(" ")
        v = g[0] + "-" + " ".join(g[1:]) if len(g) > 2 else num[:-1] + "x"
    else:  # a known issuer at a length it never issues
        body = "5" + R.choice("12345") + "".join(R.choice(string.digits) for _ in range(11))
        v = body + luhn_digit(body)
    row(R.choice(CARD_CTX).format(v), [], "card-negative")


def ipv4():
    return ".".join(str(R.randint(1, 254)) for _ in range(4))


IPV6 = ["2001:db8::1", "fe80::1ff:fe23:4567:890a", "::1", "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
        "::ffff:192.0.2.128", "2606:4700:4700::1111", "fd12:3456:789a:1::", "2001:db8:0:0:1:0:0:1"]
IP_CTX = ["Login from {} blocked.", "host {}:8080 is up", "allow {}/32 in the firewall",
          '{{"ip": "{}"}}', "client_ip={} ua=curl", "Ping {} failed."]
for i in range(170):
    v = ipv4() if i % 3 else R.choice(IPV6)
    ctx = R.choice(IP_CTX)
    if ":8080" in ctx and ":" in v:
        ctx = "host [{}]:8080 is up"
    row(ctx.format(v), [("IP_ADDRESS", v)], "ip")

IP_NEG = [
    "Upgrade to v2.10.4.1 tonight.", "Windows build 10.0.19041.1 ships.",
    "OID 1.3.6.1.4.1.311.21.20 in the cert", "sha256WithRSA is 1.2.840.113549.1.1.11",
    "Version 3.11.4 of Python", "Chrome/120.0.6099.109 Safari/537.36",
    "Section 4.2.1.10.3 of the RFC", "256.1.1.1 is out of range", "Release 1.0.0.0-beta",
    "The MAC is 00:1a:2b:3c:4d:5e.", "Starts at 10:30:00 sharp.", "std::vector<int> v;",
    "Use Foo::Bar::baz() here.", "ratio 16:9:4 on screen", "Dated 01.02.2023.",
    "OID 2.16.840.1.101.3.4.2.1 is SHA-256", "value 999.999.999.999 is a placeholder",
    "a:b:c:d:e is no address",
]
for i in range(110):
    row(IP_NEG[i % len(IP_NEG)], [], "ip-negative")

IBAN_SHAPES = {"DE": "n18", "GB": "a4n14", "FR": "n23", "NL": "a4n10", "ES": "n20", "IT": "a1n22",
               "CH": "n17", "BE": "n12", "AT": "n16", "PL": "n24", "NO": "n11", "IE": "a4n14"}


def bban(shape):
    out, i = "", 0
    while i < len(shape):
        kind = shape[i]
        j = i + 1
        while j < len(shape) and shape[j].isdigit():
            j += 1
        n = int(shape[i + 1:j])
        out += "".join(R.choice(string.ascii_uppercase if kind == "a" else string.digits)
                       for _ in range(n))
        i = j
    return out


def iban_check(cc, b):
    s = b + cc + "00"
    n = int("".join(str(int(c, 36)) for c in s))
    return f"{98 - n % 97:02d}"


def iban_valid(v):
    s = v.replace(" ", "")
    s = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in s)) % 97 == 1


def grouped(s):
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


IBAN_CTX = ["IBAN: {}", "Wire to {} (ref 2291).", '{{"iban": "{}"}}', "Pay into {} please.",
            "Account {}"]
for _ in range(160):
    cc = R.choice(list(IBAN_SHAPES))
    b = bban(IBAN_SHAPES[cc])
    v = cc + iban_check(cc, b) + b
    v = grouped(v) if R.random() < 0.5 else v
    row(R.choice(IBAN_CTX).format(v), [("IBAN", v)], "iban")

for i in range(120):
    cc = R.choice(list(IBAN_SHAPES))
    b = bban(IBAN_SHAPES[cc])
    good = cc + iban_check(cc, b) + b
    kind = i % 4
    if kind == 0:  # a wrong check digit
        chk = int(good[2:4])
        v = cc + f"{(chk + R.randint(1, 20)) % 97 + 2:02d}"[-2:] + b
        if iban_valid(v):
            v = cc + "00" + b
    elif kind == 1:  # one character short
        v = good[:-1]
    elif kind == 2:  # unknown country
        v = "ZZ" + good[2:]
    else:  # one digit of the account changed
        k = R.randint(5, len(good) - 1)
        d = good[k]
        repl = str((int(d) + 3) % 10) if d.isdigit() else ("A" if d != "A" else "B")
        v = good[:k] + repl + good[k + 1:]
        if iban_valid(v):
            v = good[:-1]
    v = grouped(v) if R.random() < 0.5 else v
    row(R.choice(IBAN_CTX).format(v), [], "iban-negative")

# Rows holding several kinds at once.
for _ in range(60):
    e, p = email(), nanp()
    ip = ipv4()
    row(f"User {e} (phone {p}) logged in from {ip}.",
        [("EMAIL", e), ("PHONE", p), ("IP_ADDRESS", ip)], "mixed")

with OUT.open("w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
print(f"{len(rows)} rows -> {OUT}")
