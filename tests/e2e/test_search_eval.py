"""Search quality over the task-worded query sets in tests/search: the
default servers (live) plus the real catalogs in ../shared/catalog (or
$MCPFS_SHARED_CATALOG), each listed by a server of ours
(tests/node/servers/sdk_catalog.mjs), queried through `mcpfs search`.

Sets: queries.tsv (the issue's set) whole and in halves (dev: its odd
queries, the half the ranking was tuned on; test: the even ones),
queries_dev.tsv (more queries tuned on) and queries_holdout.tsv (written
before tuning, over tools the others do not answer with, never tuned on).
Each gets recall@1/3/5, MRR and the share of no-answer queries answered with
nothing, shown in the warnings summary of any pytest run and asserted against
floors: what this ranking reaches (BENCHMARKS.md) less a query or two, so a
change that loses quality fails here. The issue's goals are recall@3 >= 0.90
and >= 0.90 empty."""
import json
import sys
import warnings

import pytest

from conftest import CATALOGS, REPO, TEST_SERVERS

SETS = REPO / "tests" / "search"
# (set, recall@3 floor, no-answer-empty floor). Reached on 2026-11-28 with
# the score reach: queries 0.909 / 0.920, dev 0.909 / 0.917, test 0.908 /
# 0.923, queries_dev 0.845 / 0.840, holdout 0.842 / 0.850 (BENCHMARKS.md).
FLOORS = [
    ("queries", 0.89, 0.88),
    ("dev", 0.88, 0.83),
    ("test", 0.88, 0.84),
    ("queries_dev", 0.82, 0.80),
    ("queries_holdout", 0.81, 0.80),
]


class SearchQuality(UserWarning):
    """The figures, for the warnings summary."""


def load(name):
    out = []
    for line in (SETS / f"{name}.tsv").read_text().splitlines():
        if line.startswith("#") or "\t" not in line:
            continue
        q, ans = line.split("\t", 1)
        out.append((q, None if ans == "-" else set(ans.split())))
    return out


def figures(results):
    """results: (answers or None, names returned) per query."""
    r1 = r3 = r5 = mrr = 0.0
    pos = neg = empty = 0
    for answers, got in results:
        if answers is None:
            neg += 1
            empty += not got
            continue
        pos += 1
        rank = next((i for i, n in enumerate(got) if n in answers), None)
        if rank is not None:
            r1 += rank < 1
            r3 += rank < 3
            r5 += rank < 5
            mrr += 1 / (rank + 1)
    return {"n": pos + neg, "neg": neg, "r1": r1 / pos, "r3": r3 / pos, "r5": r5 / pos,
            "mrr": mrr / pos, "empty": empty / neg}


def test_quality_on_task_worded_queries(mcpfs):
    if not CATALOGS.is_dir():
        pytest.skip(f"{CATALOGS} is missing (CI has shared/ beside the clone; "
                    "else set MCPFS_SHARED_CATALOG)")
    with open(REPO / "servers" / "default.json") as f:
        servers = json.load(f)["mcpServers"]
    for cat in sorted(CATALOGS.glob("*.json")):
        servers.setdefault(cat.stem, {"command": "node",
                                      "args": [str(TEST_SERVERS / "sdk_catalog.mjs"), str(cat)]})
    mcpfs.write_config(servers)
    env = {"MCPFS_SERVERS_DIR": str(REPO / "servers")}
    # One parallel start fills the catalog cache the searches read.
    assert len(mcpfs.json("tools", env=env, timeout=300)) > 272
    queries = load("queries")
    assert len(queries) >= 150 and sum(ans is None for _, ans in queries) >= 20
    holdout = load("queries_holdout")
    assert len(holdout) >= 60 and sum(ans is None for _, ans in holdout) >= 15

    def ask(qs):
        return [(answers, [r["name"] for r in
                           mcpfs.json("search", q, "--detail", "name", env=env)])
                for q, answers in qs]

    got = {"queries": ask(queries)}
    got["dev"], got["test"] = got["queries"][0::2], got["queries"][1::2]
    for name in ("queries_dev", "queries_holdout"):
        got[name] = ask(load(name))
    lines, failures = [], []
    for name, r3_floor, empty_floor in FLOORS:
        f = figures(got[name])
        line = (f"search quality, {name} ({f['n']} queries, {f['neg']} with no answer): "
                f"recall@1 {f['r1']:.3f} recall@3 {f['r3']:.3f} recall@5 {f['r5']:.3f} "
                f"MRR {f['mrr']:.3f} no-answer empty {f['empty']:.3f} "
                f"(floors {r3_floor:.2f} / {empty_floor:.2f})")
        lines.append(line)
        if f["r3"] < r3_floor or f["empty"] < empty_floor:
            failures.append(line)
    report = "\n".join(lines)
    print(report, file=sys.stderr)
    warnings.warn(SearchQuality(report))
    assert not failures, "below the floor:\n" + "\n".join(failures) + "\nall:\n" + report
