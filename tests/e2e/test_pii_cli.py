"""`mcpfs pii scan|redact|restore`: precision and recall per kind on the
labelled corpus (tests/pii/corpus.jsonl), the --json shape, and bad input
(invalid UTF-8, NUL bytes, 100 MB of digits, a pattern that backtracks
catastrophically): a clear error or a correct answer, never a hang."""
import bisect
import json
from collections import Counter
from pathlib import Path

from conftest import REPO

CORPUS = REPO / "tests" / "pii" / "corpus.jsonl"
GOAL = 0.95


def config(mcpfs, pii):
    mcpfs.config_path.write_text(json.dumps({"mcpServers": {}, "pii": pii}))


def scan(mcpfs, data: bytes, check=0):
    import subprocess
    p = subprocess.run(mcpfs.cmd("pii", "scan", "--json"), input=data, capture_output=True,
                       env=mcpfs.env, timeout=600)
    assert p.returncode not in (86, 87), p.stderr.decode()
    assert p.returncode == check, p.stderr.decode()
    return json.loads(p.stdout) if check == 0 else p.stderr.decode()


KINDS = ["EMAIL", "PHONE", "SSN", "CREDIT_CARD", "IP_ADDRESS", "IBAN"]
NEGATIVES = ("email", "phone", "ssn", "card", "ip", "iban")


def test_corpus_is_varied():
    """Each note's rows are distinct texts, and the values span the formats
    (a corpus of a few sentences repeated would score without testing)."""
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    by_note = {}
    for r in rows:
        by_note.setdefault(r["note"], []).append(r["text"])
    for note, texts in by_note.items():
        assert len(set(texts)) == len(texts), note
    for n in NEGATIVES:
        assert len(by_note[f"{n}-negative"]) >= 100, n
    values = {}
    for r in rows:
        for e in r["entities"]:
            values.setdefault(e["type"], set()).add(e["value"])
    for k in KINDS:
        assert len(values[k]) >= 150, (k, len(values[k]))
    ipv6 = {v for v in values["IP_ADDRESS"] if ":" in v}
    intl = {v for v in values["PHONE"] if v.startswith("+") and not v.startswith("+1")}
    codes = {v.split()[0].split("-")[0][:4] for v in intl}
    ibans = {v[:2] for v in values["IBAN"]}
    assert len(ipv6) >= 100 and len(intl) >= 100, (len(ipv6), len(intl))
    assert len(codes) >= 20 and len(ibans) >= 25, (sorted(codes), sorted(ibans))


def test_corpus_precision_and_recall(mcpfs, figures):
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    assert len(rows) >= 1000
    blob, starts = b"", []
    for r in rows:
        starts.append(len(blob))
        blob += r["text"].encode() + b"\n\n"
    found = [set() for _ in rows]
    for m in scan(mcpfs, blob):
        i = bisect.bisect_right(starts, m["start"]) - 1
        assert blob[m["start"]:m["end"]].decode() == m["value"]
        found[i].add((m["type"], m["value"]))
    tp, fp, fn = Counter(), Counter(), Counter()
    misses = []
    for r, got in zip(rows, found):
        want = {(e["type"], e["value"]) for e in r["entities"]}
        for t, _ in got & want:
            tp[t] += 1
        for t, v in got - want:
            fp[t] += 1
            misses.append(("FP", t, v, r["text"]))
        for t, v in want - got:
            fn[t] += 1
            misses.append(("FN", t, v, r["text"]))
    negatives = Counter(r["note"].split("-")[0] for r in rows if r["note"].endswith("negative"))
    table = [f"pii corpus ({mcpfs.build}): {len(rows)} rows, "
             f"{sum(negatives.values())} hard negatives"]
    for k in KINDS:
        prec = tp[k] / max(1, tp[k] + fp[k])
        rec = tp[k] / max(1, tp[k] + fn[k])
        table.append(f"  {k:12s} tp {tp[k]:4d} fp {fp[k]:3d} fn {fn[k]:3d}  "
                     f"precision {prec:.3f} recall {rec:.3f}")
    figures.extend(table)
    summary = "\n".join(table)
    for k in KINDS:
        assert tp[k] >= 100, summary
        assert tp[k] / (tp[k] + fp[k]) >= GOAL and tp[k] / (tp[k] + fn[k]) >= GOAL, \
            summary + "\n" + "\n".join(map(str, misses[:20]))


def test_scan_json_shape(mcpfs):
    text = "x ünïcödé a@example.com\n"
    got = scan(mcpfs, text.encode())
    start = len("x ünïcödé ".encode())
    assert got == [{"type": "EMAIL", "start": start, "end": start + 13, "value": "a@example.com"}]


def test_bad_bytes(mcpfs):
    data = b"\xff\xfe\x00 a@example.com \x00\xc3\x28 123-45-6789 \x80"
    got = scan(mcpfs, data)
    assert [(m["type"], m["value"]) for m in got] == [("EMAIL", "a@example.com"),
                                                       ("SSN", "123-45-6789")]
    # redact keeps every other byte as it was.
    import subprocess
    p = subprocess.run(mcpfs.cmd("pii", "redact"), input=data, capture_output=True, env=mcpfs.env)
    assert p.returncode == 0, p.stderr
    assert p.stdout == b"\xff\xfe\x00 [EMAIL_1] \x00\xc3\x28 [SSN_1] \x80"


def test_100_mb_of_digits(mcpfs):
    digits = b"7" * (100 << 20)
    assert scan(mcpfs, digits) == []
    # With a valid card at the very end: found, at the right offset.
    card = b"\ncard 4111111111111111"
    got = scan(mcpfs, digits + card)
    assert got == [{"type": "CREDIT_CARD", "start": (100 << 20) + 6, "end": (100 << 20) + 22,
                    "value": "4111111111111111"}]


def test_catastrophic_custom_pattern_is_bounded(mcpfs):
    config(mcpfs, {"custom": [{"name": "BAD", "regex": "(a|aa)+$"}]})
    err = scan(mcpfs, b"a" * 5000 + b"b", check=1)
    assert "pattern BAD" in err and "limit" in err and err.count("\n") == 1, err


def test_custom_patterns_and_validators(mcpfs):
    config(mcpfs, {"custom": [{"name": "EMPLOYEE_ID", "regex": "\\bE-[0-9]{6}\\b"},
                              {"name": "ACCOUNT", "regex": "\\bAC[0-9]{10}\\b",
                               "validator": "luhn"}],
                   "kinds": {"PHONE": False}})
    got = scan(mcpfs, b"E-123456 AC0079927398 AC0079927391 (415) 555-2671")
    assert [(m["type"], m["value"]) for m in got] == [("EMPLOYEE_ID", "E-123456"),
                                                       ("ACCOUNT", "AC0079927398")]
    p = mcpfs.run("pii", "redact", "--session", "s1", input="E-123456 and E-654321, E-123456",
                  check=0)
    assert p.stdout == "[EMPLOYEE_ID_1] and [EMPLOYEE_ID_2], [EMPLOYEE_ID_1]"
    p = mcpfs.run("pii", "restore", "--session", "s1", input="[EMPLOYEE_ID_2] [PHONE_1x]",
                  check=0)
    assert p.stdout == "E-654321 [PHONE_1x]"


def test_usage_errors(mcpfs):
    mcpfs.run("pii", "restore", input="x", check=2)
    mcpfs.run("pii", "frob", input="x", check=2)
    p = mcpfs.run("pii", "redact", "--session", "../x", input="a@example.com", check=2)
    assert "session" in p.stderr
    config(mcpfs, {"custom": [{"name": "X", "regex": "("}]})
    p = mcpfs.run("pii", "scan", input="x", check=2)
    assert "pattern X" in p.stderr
    assert mcpfs.run("pii", "--help", check=0).stdout.startswith("usage: mcpfs pii")


def test_vault_goes_with_its_session(mcpfs):
    import os
    import time
    for s in ("old", "live"):
        mcpfs.run("pii", "redact", "--customer", "acme", "--session", s, input="a@example.com",
                  check=0)
        mcpfs.run("session", "checkpoint", "acme", s, "--set", '{"step": 1}', check=0)
    sessions = mcpfs.root / "workspaces" / "acme" / "sessions"
    past = time.time() - 40 * 86400
    # An old vault whose session still takes tasks stays; one whose log is old goes.
    for f in ("old.json", "old.vault", "live.vault"):
        os.utime(sessions / f, (past, past))
    gone = mcpfs.json("workspace", "gc", "acme", "--max-age-days", "30")
    assert "sessions/old.vault" in gone["acme"] and "sessions/live.vault" not in gone["acme"]
    assert (sessions / "live.vault").exists() and not (sessions / "old.vault").exists()
