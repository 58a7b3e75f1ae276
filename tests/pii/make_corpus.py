#!/usr/bin/env python3
"""Writes tests/pii/corpus.jsonl: the labelled corpus test_pii_cli.py scores.

One JSON object per line: {"text", "entities": [{"type", "value"}], "note"}.
Every row is built from structured variation, not picked from a short list:
values are generated (names and domains, per-country phone plans, SSN
ranges, card issuers and lengths, IPv6 compression, per-country IBAN
layouts), and so is the text around them (prose, JSON, CSV, logs, YAML,
HTML, mail headers, Markdown). Hard negatives are generated the same way
for every kind: Luhn-failing and wrong-issuer card look-alikes, never-issued
SSNs and mixed delimiters, IBANs with a wrong check digit or one character
short (and ISINs, VAT ids, BICs), versions and OIDs shaped like IPs, MACs,
times and C++ scopes, dates, order numbers and invalid area codes shaped
like phones, addresses in URLs and code. Check digits are computed here,
independently of the C code. Texts are unique within each note.
Deterministic: `python3 tests/pii/make_corpus.py` rewrites the same file.
"""
import ipaddress
import json
import random
import string
from pathlib import Path

R = random.Random(2111)
OUT = Path(__file__).resolve().parent / "corpus.jsonl"
rows = []
seen = set()


def row(text, entities=(), note=""):
    """Add a row unless the same text is already in its note; True if added."""
    if (note, text) in seen:
        return False
    seen.add((note, text))
    rows.append({"text": text, "entities": [{"type": t, "value": v} for t, v in entities],
                 "note": note})
    return True


def fill(n, make, note):
    """Rows from make() -> (text, entities) until @n unique ones."""
    tries = 0
    added = 0
    while added < n:
        tries += 1
        assert tries < n * 50, f"{note}: not enough variation"
        text, ents = make()
        added += row(text, ents, note)


pick = R.choice


def digits(n):
    return "".join(pick(string.digits) for _ in range(n))


def hexs(n):
    return "".join(pick("0123456789abcdef") for _ in range(n))


# Words to build names, places and prose from.
FIRST = ["john", "maria", "li", "ahmed", "sofia", "kwame", "olga", "raj", "emma", "noah", "yuki",
         "lucas", "fatima", "diego", "anna", "omar", "chloe", "ivan", "zoe", "mateo", "priya",
         "tom", "ines", "hana", "karl", "amara", "sven", "leila", "pablo", "mei", "nora", "felix",
         "aisha", "jonas", "elena", "tariq", "ruth", "bruno", "sara", "dmitri"]
LAST = ["smith", "garcia", "chen", "khan", "rossi", "mensah", "ivanova", "patel", "muller",
        "silva", "tanaka", "dubois", "nguyen", "kowalski", "okafor", "berg", "novak", "haddad",
        "johansson", "moreau", "schmidt", "costa", "yilmaz", "park", "fischer", "lopez", "ali",
        "brown", "wilson", "kim", "santos", "meyer", "nakamura", "andersen", "o'connor",
        "d'angelo"]
WORDS = ["acme", "globex", "initech", "umbrella", "stark", "wayne", "hooli", "vandelay",
         "northwind", "contoso", "fabrikam", "tailspin", "litware", "proseware", "adatum",
         "wingtip", "fourth", "blue", "river", "summit", "harbor", "pixel", "cobalt", "maple",
         "orbit", "delta", "lumen", "quartz", "nimbus", "falcon", "cedar", "atlas"]
TLDS = ["com", "org", "net", "io", "co", "de", "fr", "nl", "es", "it", "se", "ch", "dev", "app",
        "travel", "museum", "email", "technology", "info", "biz", "us", "ca", "jp", "in", "xyz",
        "co.uk", "com.au", "com.br", "co.jp", "org.uk", "ac.uk", "gov", "edu"]
THINGS = ["invoice", "ticket", "order", "renewal", "refund", "contract", "shipment", "report",
          "meeting", "account", "payment", "claim", "request", "booking", "subscription"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def name():
    last = pick(LAST).title().replace("'", "")
    return f"{pick(FIRST).title()} {last}"


def when():
    return pick([f"on {pick(DAYS)}", f"by {R.randint(1, 28)} {pick(MONTHS)}", "yesterday",
                 "today", "last week", f"before {R.randint(1, 12)}pm", "this morning", ""])


def stamp():
    return (f"2024-{R.randint(1, 12):02d}-{R.randint(1, 28):02d}T{R.randint(0, 23):02d}:"
            f"{R.randint(0, 59):02d}:{R.randint(0, 59):02d}Z")


def around(value, field, lead):
    """@value in a randomly shaped piece of text: prose led by one of @lead,
    or a record (JSON, CSV, key=value log, YAML, HTML, Markdown) with the
    member @field."""
    shape = R.randrange(10)
    who = name()
    if shape < 3:
        end = pick([".", "", " " + when() + ".", ", thanks.", " (primary).", "!", ";",
                    f" for {pick(THINGS)} #{R.randint(100, 99999)}."])
        return f"{pick(lead).format(who=who, thing=pick(THINGS))} {value}{end}".replace("  ", " ")
    if shape == 3:
        rec = {"id": R.randint(1, 99999), field: value, "name": who}
        keys = list(rec)
        R.shuffle(keys)
        return json.dumps({k: rec[k] for k in keys}, indent=pick([None, 2]))
    if shape == 4:
        return f"name,{field},{pick(THINGS)}\n{who},{value},{R.randint(1, 500)}"
    if shape == 5:
        return (f"{stamp()} level={pick(['info', 'warn', 'debug'])} {field}={value} "
                f"req={hexs(8)}")
    if shape == 6:
        return f"{pick(THINGS)}:\n  owner: {who}\n  {field}: {value}\n"
    if shape == 7:
        return f"<tr><td>{who}</td><td>{value}</td></tr>"
    if shape == 8:
        return f"| {who} | {value} | {pick(THINGS)} |"
    return f"{pick(lead).format(who=who, thing=pick(THINGS)).rstrip(':')}: \"{value}\""


def wrap(text):
    """A sentence as tool results carry it: alone, or in JSON, a log line,
    CSV, YAML, HTML or Markdown."""
    shape = R.randrange(8)
    field = pick(["note", "message", "comment", "description", "body", "summary"])
    if shape == 0:
        return json.dumps({"id": R.randint(1, 9999), field: text})
    if shape == 1:
        return f"{stamp()} level={pick(['info', 'warn'])} msg={json.dumps(text)}"
    if shape == 2:
        return f"id,{field}\n{R.randint(1, 999)},{json.dumps(text)}"
    if shape == 3:
        return f"{field}: |\n  {text}\n"
    if shape == 4:
        return f"<p>{text}</p>"
    if shape == 5:
        return f"- {text}"
    return text


# --- EMAIL ------------------------------------------------------------------

def domain():
    labels = [pick(WORDS)]
    if R.random() < 0.4:
        labels.insert(0, pick(["mail", "corp", "eu", "us", "support", "billing", "dept", "uni"]))
    if R.random() < 0.2:
        labels[-1] += pick(["-" + pick(WORDS), str(R.randint(1, 99))])
    tld = "xn--p1ai" if R.random() < 0.03 else pick(TLDS)
    return ".".join(labels) + "." + tld


def email():
    f, l = pick(FIRST), pick(LAST)
    local = pick([f"{f}.{l}", f"{f}_{l}", f"{f}{R.randint(1, 999)}", f"{f[0]}{l}",
                  f"{f}.{l}+{pick(THINGS)}", f"{l}-{f}", f"{f.title()}.{l.title()}", f"{l}",
                  f"{f}.{pick(string.ascii_lowercase)}.{l}", f"{pick(THINGS)}s", f"no-reply",
                  f"{f}{l}{R.randint(70, 99)}", f"{f}%{pick(WORDS)}"])
    return f"{local}@{domain()}"


EMAIL_LEAD = ["Please contact", "Forwarded from", "The owner of the {thing} is", "cc:",
              "Reply to", "Contact:", "Sent by", "Escalated by {who} to", "{who} wrote from",
              "Send the {thing} to", "Billing contact", "Invite", "mailto:", "Notify"]


def email_pos():
    e = email()
    if R.random() < 0.1:
        e = e.upper()
    shape = R.randrange(9)
    if shape == 8:
        more = [email() for _ in range(R.randint(1, 3))]
        return f"To: {', '.join([e] + more)}", [("EMAIL", x) for x in [e] + more]
    if shape == 0:
        return f"From: {name()} <{e}>\nSubject: {pick(THINGS)} {when()}", [("EMAIL", e)]
    if shape == 1:
        return f"[{name()}](mailto:{e}) owns the {pick(THINGS)}.", [("EMAIL", e)]
    return around(e, pick(["email", "mail", "contact", "owner_email", "e-mail"]), EMAIL_LEAD), [
        ("EMAIL", e)]


def email_neg():
    w, f, l = pick(WORDS), pick(FIRST), pick(LAST)
    v = f"{R.randint(1, 20)}.{R.randint(0, 30)}.{R.randint(0, 99)}"
    host = f"{pick(WORDS)}.{pick(['com', 'io', 'org', 'dev'])}"
    shape = R.randrange(16)
    if shape == 0:  # image assets at a pixel density
        return (f"Use {w}-{pick(['logo', 'icon', 'banner', 'hero'])}@{R.randint(2, 4)}x."
                f"{pick(['png', 'jpg', 'jpeg', 'webp', 'svg', 'gif'])} on retina screens.")
    if shape == 1:  # package specs
        return pick([f"npm install {w}@{v} --save", f"pip install '{w}=={v}'",
                     f"yarn add @{w}/{pick(['core', 'cli', 'utils'])}@{v}",
                     f"\"dependencies\": {{\"{w}\": \"{w}@{v}\"}}", f"pnpm add {w}@^{v}"])
    if shape == 2:  # handles in URL paths
        return pick([f"Read https://{host}/@{f}.{l}/{pick(THINGS)}-{R.randint(1, 999)}",
                     f"See https://{host}/u/{f}.{l}@{domain()}/edit in the admin.",
                     f"GET /api/users/{f}@{domain()}/{pick(['profile', 'avatar'])} 200"])
    if shape == 3:  # git remotes
        return (f"git clone git@{pick(['github.com', 'gitlab.com', 'bitbucket.org', host])}:"
                f"{w}/{pick(WORDS)}.git")
    if shape == 4:  # decorators and annotations
        return pick([f"@{pick(['app', 'router', 'bp'])}.route('/{w}')\ndef {w}():",
                     f"@pytest.mark.{pick(['parametrize', 'slow', 'skip'])}",
                     f"@{pick(['Override', 'Deprecated', 'Test', 'Inject'])} public void {w}()",
                     f"@property\ndef {w}(self):", f"@{w}.setter"])
    if shape == 5:  # matrix products and other @ operators
        return pick([f"y = {pick('xXWA')}@{pick('WBMv')}.T + b", f"out = a@b",
                     f"loss = (h@{pick(['w', 'W1', 'proj'])}).sum()"])
    if shape == 6:  # CSS at-rules
        return pick([f"@media (max-width: {R.randint(300, 1200)}px) {{ .{w} {{ }} }}",
                     f"@import url('{w}.css');", f"@font-face {{ font-family: {w}; }}"])
    if shape == 7:  # hosts without a top-level domain
        return f"ssh {f}@{pick(['localhost', w, 'db01', 'build-' + str(R.randint(1, 9))])} " \
               f"and restart {w}."
    if shape == 8:  # malformed addresses
        return pick([f"{f}..{l}@{domain()} bounced (typo)", f"{f}@{w}.{R.randint(1, 999)}",
                     f"{f}@{w}.c is not valid", f".{f}@{domain()} was rejected",
                     f"{f}.@{domain()} was rejected"])
    if shape == 9:  # social handles
        return f"follow @{f}_{l} and @{w} for {pick(THINGS)} news"
    if shape == 10:  # regexes
        return pick([r"const re = /^[^@]+@[^@]+$/;", r"pattern = r'[\w.]+@[\w.]+'",
                     f"grep -E '@{w}\\.' access.log"])
    if shape == 11:  # container digests
        return f"image: {w}/{pick(WORDS)}@sha256:{hexs(64)}"
    if shape == 12:  # credentials in a URL
        return f"DATABASE_URL=postgres://{f}:{hexs(8)}@{host}:5432/{w}"
    if shape == 13:  # version pins
        return f"uses: actions/{pick(['checkout', 'setup-node', 'cache'])}@v{R.randint(1, 5)}"
    if shape == 14:  # @-mentions with a dot after
        return f"thanks @{f}. the {pick(THINGS)} is done"
    return f"{pick(THINGS)}@{R.randint(2, 9)}x speed: {w}@{R.randint(1, 60)}fps"


# --- PHONE ------------------------------------------------------------------

def nanp_parts():
    while True:
        area = f"{R.randint(2, 9)}{R.choice('012345678')}{R.randint(0, 9)}"
        ex = f"{R.randint(2, 9)}{R.randint(0, 9)}{R.randint(0, 9)}"
        if area[1:] != "11" and ex[1:] != "11":
            return area, ex, digits(4)


def nanp():
    a, b, c = nanp_parts()
    return pick([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"+1 {a} {b} {c}",
                 f"1-{a}-{b}-{c}", f"+1-{a}-{b}-{c}", f"+1{a}{b}{c}", f"({a}){b}-{c}",
                 f"{a} {b} {c}", f"+1 ({a}) {b}-{c}", f"1 ({a}) {b}-{c}", f"+1.{a}.{b}.{c}"])


def group(ds, sizes, sep):
    out, i = [], 0
    for s in sizes:
        out.append(ds[i:i + s])
        i += s
    if i < len(ds):
        out.append(ds[i:])
    return sep.join(x for x in out if x)


# Country code, national significant numbers (first digits, length) and the
# groupings people write them in.
PLANS = [
    ("44", [("20", 10, [2, 4, 4]), ("7", 10, [4, 6]), ("161", 10, [3, 3, 4])]),
    ("49", [("30", 10, [2, 8]), ("15", 11, [3, 8]), ("89", 10, [2, 4, 4])]),
    ("33", [("1", 9, [1, 2, 2, 2, 2]), ("6", 9, [1, 2, 2, 2, 2])]),
    ("81", [("3", 10, [1, 4, 5]), ("90", 10, [2, 4, 4])]),
    ("61", [("2", 9, [1, 4, 4]), ("4", 9, [3, 3, 3])]),
    ("91", [("9", 10, [5, 5]), ("22", 10, [2, 8])]),
    ("34", [("91", 9, [3, 3, 3]), ("6", 9, [3, 3, 3])]),
    ("39", [("06", 10, [2, 4, 4]), ("3", 10, [3, 3, 4])]),
    ("55", [("11", 11, [2, 5, 4]), ("21", 10, [2, 4, 4])]),
    ("27", [("21", 9, [2, 3, 4]), ("8", 9, [2, 3, 4])]),
    ("353", [("1", 8, [1, 3, 4]), ("8", 9, [2, 3, 4])]),
    ("46", [("8", 9, [1, 3, 3, 2]), ("7", 9, [2, 3, 2, 2])]),
    ("31", [("6", 9, [1, 8]), ("20", 9, [2, 3, 4])]),
    ("52", [("55", 10, [2, 4, 4])]),
    ("86", [("1", 11, [3, 4, 4]), ("10", 10, [2, 4, 4])]),
    ("65", [("8", 8, [4, 4]), ("6", 8, [4, 4])]),
    ("41", [("44", 9, [2, 3, 2, 2]), ("7", 9, [2, 3, 2, 2])]),
    ("48", [("5", 9, [3, 3, 3]), ("22", 9, [2, 3, 2, 2])]),
    ("64", [("9", 8, [1, 3, 4]), ("2", 9, [2, 3, 4])]),
    ("82", [("10", 10, [2, 4, 4]), ("2", 9, [1, 4, 4])]),
    ("54", [("911", 11, [1, 2, 4, 4])]),
    ("971", [("5", 9, [2, 3, 4])]),
    ("234", [("80", 10, [3, 3, 4])]),
    ("20", [("10", 10, [2, 4, 4])]),
    ("90", [("5", 10, [3, 3, 2, 2])]),
    ("7", [("9", 10, [3, 3, 2, 2])]),
]


def intl():
    cc, plans = pick(PLANS)
    first, n, sizes = pick(plans)
    nsn = first + digits(n - len(first))
    style = R.randrange(8)
    if style == 6 and cc in ("44", "49", "39", "61", "41", "31"):
        return f"+{cc} (0){group(nsn, sizes, ' ')}"
    if style == 7:
        return f"tel:+{cc}{nsn}"
    if style == 0:
        return f"+{cc} {group(nsn, sizes, ' ')}"
    if style == 1:
        return f"+{cc}-{group(nsn, sizes, '-')}"
    if style == 2:
        return f"+{cc}{nsn}"
    if style == 3:
        return f"+{cc} {group(nsn, sizes, '.')}"
    if style == 4:
        return f"+{cc} ({nsn[:sizes[0]]}) {group(nsn[sizes[0]:], sizes[1:], ' ')}"
    return f"+{cc} {group(nsn, sizes, ' ')}"


PHONE_LEAD = ["Call me at", "Phone:", "Mobile", "tel", "Reach support on", "Fax:",
              "{who} can be reached at", "Text", "Direct line", "WhatsApp", "After hours dial",
              "The {thing} desk is on"]


def phone_pos():
    p = nanp() if R.random() < 0.5 else intl()
    if p.startswith("tel:"):
        return f"<a href=\"{p}\">{pick(PHONE_LEAD).format(who=name(), thing='desk')}</a>", [
            ("PHONE", p[4:])]
    if R.random() < 0.1:
        return f"Call {p} ext. {R.randint(1, 999)} for the {pick(THINGS)}.", [("PHONE", p)]
    return around(p, pick(["phone", "tel", "mobile", "fax", "contact_number"]), PHONE_LEAD), [
        ("PHONE", p)]


def phone_neg():
    y, m, d = R.randint(1990, 2030), R.randint(1, 12), R.randint(1, 28)
    shape = R.randrange(17)
    if shape == 15:  # vanity numbers
        return f"Call 1-800-{''.join(pick(string.ascii_uppercase) for _ in range(7))} today."
    if shape == 16:  # scores, sizes, counts
        return pick([f"Final score {R.randint(0, 9)}-{R.randint(0, 9)} after extra time.",
                     f"Resolution {R.randint(640, 7680)}x{R.randint(480, 4320)} at "
                     f"{R.randint(24, 240)} Hz", f"{R.randint(1000, 9999)} {R.randint(100, 999)}"
                     f" {R.randint(1000, 9999)} bytes read"])
    if shape == 0:  # dates and times
        return pick([f"Shipped on {y}-{m:02d}-{d:02d} at {R.randint(0, 23):02d}:30:00.",
                     f"Invoice date {d:02d}.{m:02d}.{y}, due {d:02d}.{m % 12 + 1:02d}.{y}.",
                     f"Meeting on {m:02d}/{d:02d}/{y} at {R.randint(1, 12)}pm.",
                     f"Period {y}-{m:02d}-{d:02d} to {y + 1}-{m:02d}-{d:02d}",
                     f"{stamp()} job finished"])
    if shape == 1:  # bare order numbers
        return (f"{pick(['Order', 'Invoice', 'Case', 'Ticket'])} #{digits(10)} is "
                f"{pick(['on its way', 'closed', 'open', 'paid'])}.")
    if shape == 2:  # prefixed references
        a, b, c = nanp_parts()
        return f"Ref {pick(['ORD', 'INV', 'PO', 'REF'])}-{a}-{b}-{c} in the portal."
    if shape == 3:  # invalid North American numbers
        a, b, c = nanp_parts()
        bad = pick([f"{R.randint(0, 1)}{a[1:]}", f"{a[0]}9{a[2]}", f"{a[0]}11"])
        ex = pick([b, f"{R.randint(0, 1)}{b[1:]}"])
        return f"Call ({bad}) {ex}-{c} is not a working number."
    if shape == 4:  # exchanges that cannot start with 0 or 1
        a, b, c = nanp_parts()
        return f"Dial {a}-{R.randint(0, 1)}{b[1:]}-{c} (disconnected)."
    if shape == 5:  # ISBNs
        return f"ISBN 978-{R.randint(0, 9)}-{digits(2)}-{digits(6)}-{R.randint(0, 9)}"
    if shape == 6:  # ZIP+4 and postcodes
        return f"ZIP {digits(5)}-{digits(4)}, suite {R.randint(1, 900)}"
    if shape == 7:  # Unix times
        return f"Timestamp {R.randint(1000000000, 1999999999)} in the log."
    if shape == 8:  # build numbers and version strings
        return f"Build {y}.{m:02d}.{d:02d}.{digits(4)} ships {pick(DAYS)}."
    if shape == 9:  # coordinates
        return f"Coordinates {R.uniform(-90, 90):.4f}, {R.uniform(-180, 180):.4f}"
    if shape == 10:  # serial and part numbers
        return f"Serial {digits(2)}-{digits(4)}-{digits(4)}-{digits(2)}"
    if shape == 11:  # amounts
        return f"Revenue was ${R.randint(1, 999)},{digits(3)},{digits(3)}.{digits(2)}"
    if shape == 12:  # ranges
        return f"Pages {R.randint(100, 499)}-{R.randint(500, 999)} cover years {y}-{y + 5}."
    if shape == 13:  # too short after a country code
        return f"Dial +{R.randint(2, 9)}{digits(R.randint(2, 5))} for the operator."
    return f"Account {digits(4)}-{digits(4)}-{digits(2)} at branch {digits(3)}"


# --- SSN --------------------------------------------------------------------

def ssn_parts():
    while True:
        a = R.choice([R.randint(1, 665), R.randint(667, 899)])
        g, s = R.randint(1, 99), R.randint(1, 9999)
        if (a, g, s) not in ((78, 5, 1120), (219, 9, 9999)):
            return a, g, s


SSN_LEAD = ["SSN:", "Social security number", "ssn", "Applicant", "SSN of {who}:",
            "Taxpayer id", "Verified SSN", "Employee {who}, SSN"]


def ssn_pos():
    a, g, s = ssn_parts()
    d = pick(["-", " "])
    v = f"{a:03d}{d}{g:02d}{d}{s:04d}"
    return around(v, pick(["ssn", "social_security", "tax_id"]), SSN_LEAD), [("SSN", v)]


def ssn_neg():
    a, g, s = ssn_parts()
    shape = R.randrange(9)
    v = [f"000-{g:02d}-{s:04d}", f"666-{g:02d}-{s:04d}",
         f"{R.randint(900, 999)}-{g:02d}-{s:04d}", f"{a:03d}-00-{s:04d}",
         f"{a:03d}-{g:02d}-0000", pick([f"{a:03d}-{g:02d} {s:04d}", f"{a:03d} {g:02d}-{s:04d}"]),
         pick(["078-05-1120", "219-09-9999"]),
         pick([f"{a:03d}-{g:02d}-{s:04d}{R.randint(0, 9)}", f"{a:04d}-{g:02d}-{s:04d}",
               f"{a:03d}-{g:02d}-{s:05d}"]),
         f"{pick(['ID', 'EMP', 'X'])}-{a:03d}-{g:02d}-{s:04d}"][shape]
    return around(v, pick(["ssn", "id", "ref"]), SSN_LEAD)


# --- CREDIT_CARD ------------------------------------------------------------

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


# Issuer prefixes (a range of k-digit prefixes) and the lengths they issue.
ISSUERS = [((4, 4), [16, 16, 16, 19]), ((51, 55), [16]), ((2221, 2720), [16]), ((34, 34), [15]),
           ((37, 37), [15]), ((6011, 6011), [16, 19]), ((644, 649), [16]), ((65, 65), [16]),
           ((300, 305), [14]), ((36, 36), [14]), ((38, 39), [16]), ((3528, 3589), [16]),
           ((62, 62), [16, 19]), ((6759, 6759), [16]), ((56, 58), [16])]


def card_number(prefix=None, length=None):
    (lo, hi), lengths = pick(ISSUERS)
    prefix = prefix or str(R.randint(lo, hi))
    length = length or pick(lengths)
    body = prefix + digits(length - len(prefix) - 1)
    return body + luhn_digit(body)


def fmt_card(num, sep):
    if sep == "":
        return num
    if len(num) == 15:
        groups = [num[:4], num[4:10], num[10:]]
    elif len(num) == 14:
        groups = [num[:4], num[4:10], num[10:]]
    else:
        groups = [num[i:i + 4] for i in range(0, len(num), 4)]
    return sep.join(groups)


CARD_LEAD = ["Card", "Charged to", "cc_number", "Please refund", "Paid with", "Card on file:",
             "{who} used", "Declined:", "PAN", "The {thing} was billed to"]


def card_pos():
    v = fmt_card(card_number(), pick(["", " ", "-"]))
    if R.random() < 0.1:  # a number right after it
        return (f"{pick(CARD_LEAD).format(who=name(), thing=pick(THINGS))} {v} "
                f"{pick([str(R.randint(2025, 2032)), str(R.randint(1, 99)) + ' EUR'])}"), [
            ("CREDIT_CARD", v)]
    if R.random() < 0.15:
        return (f"Card {v} exp {R.randint(1, 12):02d}/{R.randint(25, 32)} cvv "
                f"{digits(3)}"), [("CREDIT_CARD", v)]
    return around(v, pick(["card", "card_number", "pan", "payment_card"]), CARD_LEAD), [
        ("CREDIT_CARD", v)]


def card_neg():
    num = card_number()
    shape = R.randrange(7)
    if shape == 0:  # Luhn fails
        v = fmt_card(num[:-1] + str((int(num[-1]) + R.randint(1, 9)) % 10), pick(["", " ", "-"]))
    elif shape == 1:  # no issuer starts with 0, 1, 7, 8 or 9
        body = pick("01789") + digits(14)
        v = fmt_card(body + luhn_digit(body), pick(["", " ", "-"]))
    elif shape == 2:  # mixed separators
        g = fmt_card(num, " ").split(" ")
        v = g[0] + "-" + " ".join(g[1:])
    elif shape == 3:  # an issuer at a length it never issues
        prefix, length = pick([("4", 14), ("4", 15), ("4", 17), ("4", 18), ("51", 15),
                               ("55", 17), ("2221", 15), ("34", 16), ("37", 14), ("34", 13)])
        body = prefix + digits(length - len(prefix) - 1)
        v = body + luhn_digit(body)
    elif shape == 4:  # too long: a 20- to 24-digit reference
        body = pick("45") + digits(R.randint(19, 23))
        v = body + luhn_digit(body)
    elif shape == 5:  # too short
        body = "4" + digits(R.randint(8, 10))
        v = body + luhn_digit(body)
    else:  # the middle of a longer run of groups
        v = " ".join(digits(4) for _ in range(R.randint(6, 8)))
    return around(v, pick(["card", "ref", "number"]), CARD_LEAD)


# --- IP_ADDRESS -------------------------------------------------------------

def ipv4():
    first = R.choice([10, 172, 192, R.randint(1, 223)])
    return ".".join([str(first)] + [str(R.randint(0, 255)) for _ in range(3)])


def ipv6():
    kind = R.randrange(6)
    if kind == 0:
        net = ipaddress.IPv6Network("2001:db8::/32")
    elif kind == 1:
        net = ipaddress.IPv6Network("fe80::/64")
    elif kind == 2:
        net = ipaddress.IPv6Network("fd00::/8")
    else:
        net = ipaddress.IPv6Network(f"2{hexs(3)}::/16")
    host = R.getrandbits(128 - net.prefixlen)
    if R.random() < 0.5:  # sparse: runs of zeros to compress
        host &= sum(0xffff << (16 * i) for i in R.sample(range((128 - net.prefixlen) // 16),
                                                        R.randint(1, 3)))
    a = ipaddress.IPv6Address(int(net.network_address) | host)
    if kind == 4:
        return f"::ffff:{ipv4()}"
    if kind == 5:
        return f"64:ff9b::{ipv4()}"
    style = R.randrange(3)
    if style == 0:
        return a.compressed
    if style == 1:
        return a.exploded
    return a.compressed.upper()


IP_LEAD = ["Login from", "Blocked", "Ping", "client_ip", "Allow", "Route to", "{who} connected from",
           "DNS answered", "Peer", "Origin"]


def ip_pos():
    v = ipv4() if R.random() < 0.5 else ipv6()
    shape = R.randrange(6)
    if shape == 5:
        w = ipv4()
        return f"X-Forwarded-For: {v}, {w}", [("IP_ADDRESS", v), ("IP_ADDRESS", w)]
    if shape == 0:
        host = f"[{v}]" if ":" in v else v
        return f"GET http://{host}:{R.randint(1024, 65535)}/{pick(THINGS)} 200", [
            ("IP_ADDRESS", v)]
    if shape == 1:
        return (f"allow {v}/{R.randint(8, 32) if '.' in v and ':' not in v else 64} "
                f"in the firewall"), [("IP_ADDRESS", v)]
    return around(v, pick(["ip", "client_ip", "remote_addr", "peer"]), IP_LEAD), [
        ("IP_ADDRESS", v)]


def ip_neg():
    shape = R.randrange(12)
    if shape == 0:  # versions with a v, or a fifth part
        return pick([f"Upgrade to v{R.randint(1, 20)}.{R.randint(0, 30)}.{R.randint(0, 9)}."
                     f"{R.randint(0, 99)} tonight.",
                     f"Release {R.randint(1, 9)}.{R.randint(0, 9)}.{R.randint(0, 9)}."
                     f"{R.randint(0, 9)}.{R.randint(0, 99)} is out."])
    if shape == 1:  # build numbers past 255
        return (f"{pick(['Windows build', 'Chrome/', 'Firefox/', 'Edge/'])}"
                f"{R.randint(10, 130)}.0.{R.randint(1000, 25000)}.{R.randint(1, 300)} ships")
    if shape == 2:  # OIDs
        oid = ".".join(str(x) for x in [pick([1, 2]), R.randint(0, 39)] +
                       [R.randint(0, 999999 if i == 0 else 300) for i in range(R.randint(3, 9))])
        return f"OID {oid} in the certificate"
    if shape == 3:  # three-part versions
        return f"{pick(['Python', 'Node', 'nginx', 'OpenSSL'])} {R.randint(1, 30)}." \
               f"{R.randint(0, 30)}.{R.randint(0, 30)} is installed"
    if shape == 4:  # octets out of range, leading zeros
        o = [R.randint(0, 255) for _ in range(4)]
        o[R.randrange(4)] = R.randint(256, 999)
        z = [f"{R.randint(0, 99):03d}" for _ in range(4)]
        return pick([".".join(map(str, o)), ".".join(z)]) + " is not a valid address"
    if shape == 5:  # MAC addresses
        return f"The MAC is {':'.join(hexs(2) for _ in range(6))}."
    if shape == 6:  # times
        return f"Starts at {R.randint(0, 23):02d}:{R.randint(0, 59):02d}:{R.randint(0, 59):02d}" \
               f" sharp."
    if shape == 7:  # scopes in code
        return pick([f"std::{pick(['vector', 'map', 'string'])}<int> {pick(WORDS)};",
                     f"{pick(WORDS).title()}::{pick(WORDS).title()}::{pick(WORDS)}()",
                     f"ratio {R.randint(1, 32)}:{R.randint(1, 32)}:{R.randint(1, 9)}"])
    if shape == 8:  # IPv6 look-alikes that do not parse
        g = [hexs(R.randint(1, 4)) for _ in range(9)]
        return pick([":".join(g), f"{g[0]}::{g[1]}::{g[2]}", f"{g[0]}:{hexs(5)}::{g[1]}"]) + \
            " is not an address"
    if shape == 9:  # dotted dates and decimals
        return pick([f"Dated {R.randint(1, 28):02d}.{R.randint(1, 12):02d}.{R.randint(1990, 2030)}",
                     f"pi is {R.randint(1, 9)}.{digits(6)}", f"Section {R.randint(1, 9)}."
                     f"{R.randint(1, 9)}.{R.randint(1, 20)}.{R.randint(1, 20)}.{R.randint(1, 9)}"])
    if shape == 10:  # quads with a suffix
        return f"{ipv4()}-{pick(['beta', 'rc1', 'SNAPSHOT'])} is the package version"
    return f"uuid {hexs(8)}-{hexs(4)}-{hexs(4)}-{hexs(4)}-{hexs(12)}"


# --- IBAN -------------------------------------------------------------------

# Country, BBAN layout (n digits, a capitals, c capitals or digits) per the
# SWIFT registry.
IBAN_SHAPES = {"AD": "n8c12", "AT": "n16", "BE": "n12", "BG": "a4n6c8", "CH": "n5c12",
               "CY": "n8c16", "CZ": "n20", "DE": "n18", "DK": "n14", "EE": "n16", "ES": "n20",
               "FI": "n14", "FR": "n10c11n2", "GB": "a4n14", "GR": "n7c16", "HR": "n17",
               "HU": "n24", "IE": "a4n14", "IS": "n22", "IT": "a1n10c12", "LT": "n16",
               "LU": "n3c13", "LV": "a4c13", "MT": "a4n5c18", "NL": "a4n10", "NO": "n11",
               "PL": "n24", "PT": "n21", "RO": "a4c16", "SE": "n20", "SI": "n15", "SK": "n20",
               "SA": "n2c18", "TR": "n5n1c16", "AE": "n3n16", "BR": "n8n5n10a1c1"}


def bban(shape):
    out, i = "", 0
    while i < len(shape):
        kind = shape[i]
        j = i + 1
        while j < len(shape) and shape[j].isdigit():
            j += 1
        n = int(shape[i + 1:j])
        chars = {"n": string.digits, "a": string.ascii_uppercase,
                 "c": string.ascii_uppercase + string.digits}[kind]
        out += "".join(R.choice(chars) for _ in range(n))
        i = j
    return out


def mod97(s):
    return int("".join(str(int(c, 36)) for c in s)) % 97


def iban_check(cc, b):
    return f"{98 - mod97(b + cc + '00'):02d}"


def iban_valid(v):
    s = v.replace(" ", "")
    return mod97(s[4:] + s[:4]) == 1


def grouped(s):
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


def iban():
    cc = pick(list(IBAN_SHAPES))
    b = bban(IBAN_SHAPES[cc])
    return cc, b, cc + iban_check(cc, b) + b


IBAN_LEAD = ["IBAN:", "Wire to", "Pay into", "Account", "Beneficiary IBAN", "{who}'s IBAN is",
             "Refund to", "SEPA transfer to", "IBAN of the {thing}:"]


def iban_pos():
    v = iban()[2]
    v = grouped(v) if R.random() < 0.5 else v
    return around(v, pick(["iban", "account", "beneficiary_iban"]), IBAN_LEAD), [("IBAN", v)]


def iban_neg():
    cc, b, good = iban()
    shape = R.randrange(8)
    if shape == 0:  # a wrong check digit
        chk = int(good[2:4])
        v = cc + f"{(chk + R.randint(1, 90)) % 97 + 2:02d}"[-2:] + b
    elif shape == 1:  # one character short
        v = good[:-1]
    elif shape == 2:  # one character long
        v = good + pick(string.digits)
    elif shape == 3:  # an unknown country
        v = pick(["ZZ", "XY", "AQ", "UU"]) + good[2:]
    elif shape == 4:  # one character of the account changed
        k = R.randint(5, len(good) - 1)
        d = good[k]
        v = good[:k] + (str((int(d) + R.randint(1, 9)) % 10) if d.isdigit()
                        else pick([c for c in string.ascii_uppercase if c != d])) + good[k + 1:]
    elif shape == 5:  # ISINs
        body = pick(["US", "DE", "GB", "FR", "NL"]) + digits(R.randint(1, 3)) + \
            "".join(pick(string.ascii_uppercase + string.digits) for _ in range(6))
        v = (body + digits(12))[:12]
    elif shape == 6:  # VAT ids
        v = pick(["DE", "FR", "NL", "BE", "AT"]) + digits(R.choice([9, 10, 11]))
    else:  # BICs and sort codes
        v = pick([f"{pick(WORDS)[:4].upper()}{cc}{pick(['2L', 'FF', 'XX'])}{digits(3)}",
                  f"sort code {digits(2)}-{digits(2)}-{digits(2)}"])
    if not v.startswith("sort") and iban_valid(v.replace(" ", "")) and len(v) == len(good):
        v = good[:-1]
    v = grouped(v) if R.random() < 0.5 and " " not in v else v
    return around(v, pick(["iban", "account", "ref"]), IBAN_LEAD)


# --- The corpus -------------------------------------------------------------

fill(300, email_pos, "email")
fill(220, lambda: (wrap(email_neg()), []), "email-negative")
fill(300, phone_pos, "phone")
fill(220, lambda: (wrap(phone_neg()), []), "phone-negative")
fill(200, ssn_pos, "ssn")
fill(180, lambda: (ssn_neg(), []), "ssn-negative")
fill(250, card_pos, "card")
fill(200, lambda: (card_neg(), []), "card-negative")
fill(300, ip_pos, "ip")
fill(220, lambda: (wrap(ip_neg()), []), "ip-negative")
fill(220, iban_pos, "iban")
fill(200, lambda: (iban_neg(), []), "iban-negative")


def mixed():
    e, p, ip = email(), pick([nanp, intl])(), pick([ipv4, ipv6])()
    rec = {"user": e, "phone": p, "last_ip": ip, "plan": pick(THINGS)}
    ents = [("EMAIL", e), ("PHONE", p.removeprefix("tel:")), ("IP_ADDRESS", ip)]
    if R.random() < 0.5:
        v = fmt_card(card_number(), pick([" ", "-", ""]))
        rec["card"] = v
        ents.append(("CREDIT_CARD", v))
    if R.random() < 0.5:
        v = iban()[2]
        rec["iban"] = v
        ents.append(("IBAN", v))
    if R.random() < 0.5:
        return json.dumps(rec), ents
    return (f"User {e} (phone {p}) logged in from {ip}; " +
            "; ".join(f"{k} {v}" for k, v in rec.items() if k in ("card", "iban"))), ents


fill(150, mixed, "mixed")


def plain():
    """Text with numbers of every shape and no value at all."""
    return pick([
        f"Q{R.randint(1, 4)} revenue grew {R.randint(1, 40)}.{R.randint(0, 9)}% to "
        f"${R.randint(1, 999)}.{R.randint(0, 9)}M across {R.randint(2, 90)} regions.",
        f"The {pick(THINGS)} moved from step {R.randint(1, 9)} to {R.randint(10, 20)} "
        f"{when()}; {R.randint(2, 400)} items remain.",
        f"Run {hexs(7)} took {R.randint(1, 900)}.{digits(2)} s, peak {R.randint(1, 64)} GiB, "
        f"exit {R.randint(0, 2)}.",
        f"Lot {R.randint(1, 99)}/{R.randint(100, 999)} weighs {R.randint(1, 999)} kg; "
        f"pallet {pick(string.ascii_uppercase)}{R.randint(1, 40)}.",
        f"{name()} approved the {pick(THINGS)} for {R.randint(2, 20)} seats at "
        f"{R.randint(10, 99)}.{digits(2)} EUR each.",
        f"See chapter {R.randint(1, 30)}, pages {R.randint(1, 200)}-{R.randint(201, 400)}, "
        f"figure {R.randint(1, 9)}.{R.randint(1, 9)}.",
    ])


fill(200, lambda: (wrap(plain()), []), "plain")

with OUT.open("w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
print(f"{len(rows)} rows -> {OUT}")
