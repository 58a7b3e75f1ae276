"""The jail's TypeScript runner (executor/runtime/ts.cjs): what it strips and
links, its errors pointing at the .ts line, its code cache, and the same
through `mcpfs exec`."""
import subprocess

import pytest

from conftest_codegen import TS_RUN, TS_RUNTIME
from conftest_executor import exec_config, host_unchanged, run_code  # noqa: F401

pytestmark = pytest.mark.skipif(not (TS_RUNTIME / "dist" / "sucrase.js").exists(),
                                reason="executor/runtime/dist is not built: make")

LIB = '''export enum Color { Red, Green }
export type Pair = { a: number; b: number };
export interface Named { name: string }
export function twice(x: number): number { return x * 2; }
'''
OTHER = '''import type { Named } from "./lib";
export const who: Named = { name: "other" };
export function boom(): never {
  throw new Error("boom on line 4");
}
'''


def ts(tmp_path, main, *args):
    (tmp_path / "lib").mkdir(exist_ok=True)
    (tmp_path / "lib" / "index.ts").write_text(LIB)
    (tmp_path / "other.ts").write_text(OTHER)
    (tmp_path / "data.json").write_text('{"n": 5}')
    (tmp_path / "main.ts").write_text(main)
    return subprocess.run([*TS_RUN, str(tmp_path / "main.ts"), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def test_types_stripped_and_imports_linked(tmp_path):
    p = ts(tmp_path, '''import { Color, twice } from "./lib";
import { type Pair } from "./lib/index.ts";
import type { Named } from "./lib";
import { who } from "./other.js";
import { createHash } from "node:crypto";
import data from "./data.json" with { type: "json" };
const pair: Pair = { a: twice(21), b: Color.Green };
const n: Named = who;
const dyn = await import("./other");
console.log(JSON.stringify([pair, n.name, dyn.who.name, data.n, typeof createHash,
  import.meta.url.endsWith("/main.ts"), process.argv.slice(1)]));
''', "arg")
    assert (p.returncode, p.stderr) == (0, ""), p.stderr
    assert p.stdout == ('[{"a":42,"b":1},"other","other",5,"function",true,["%s","arg"]]\n'
                        % (tmp_path / "main.ts"))


def test_runtime_error_points_at_the_ts_line(tmp_path):
    p = ts(tmp_path, 'import { boom } from "./other";\n\nconst x: number = 1;\nboom();\n')
    assert p.returncode == 1
    assert f"file://{tmp_path}/other.ts:4\n  throw new Error" in p.stderr, p.stderr
    assert f"at boom (file://{tmp_path}/other.ts:4:9)" in p.stderr
    assert f"file://{tmp_path}/main.ts:4:1" in p.stderr


def test_syntax_error_points_at_the_ts_line(tmp_path):
    p = ts(tmp_path, 'const ok = 1;\nconst x: number = ;\n')
    assert p.returncode == 1
    assert p.stderr.startswith(f"{tmp_path}/main.ts:2\nconst x: number = ;\n"
                               "                  ^\n\nSyntaxError: "), p.stderr
    assert "sucrase.js" not in p.stderr


def test_missing_import_is_one_line(tmp_path):
    p = ts(tmp_path, 'import { x } from "./nowhere";\nconsole.log(x);\n')
    assert (p.returncode, p.stderr) == (1, f"Error [ERR_MODULE_NOT_FOUND]: Cannot find module "
                                           f"'{tmp_path}/nowhere' imported from "
                                           f"{tmp_path}/main.ts\n")
    p = ts(tmp_path, 'try { await import("./nowhere"); } catch (e) { console.log(e.code); }\n')
    assert (p.returncode, p.stdout) == (0, "ERR_MODULE_NOT_FOUND\n"), p.stderr


def test_code_cache_accepted(tmp_path):
    """make builds a cache this node takes (else every start compiles sucrase)."""
    check = ('const { sucraseLoad } = require(%r); const d = %r;'
             'console.log(sucraseLoad(d, d + "/sucrase.cache").script.cachedDataRejected)'
             % (str(TS_RUNTIME / "ts.cjs"), str(TS_RUNTIME / "dist")))
    p = subprocess.run([*TS_RUN[:-1], "-e", check], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (0, "false\n", "")


def test_exec_error_points_at_the_ts_line(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, 'enum E { A = 7 }\nconst x: number = E.A;\n'
                      'if (x === 7) throw new Error("seven");\n', lang="typescript")
    assert res["exit_code"] == 1, res
    assert "file:///run/code/main.ts:3" in res["stderr"], res
    assert "ExperimentalWarning" not in res["stderr"]
    p, res = run_code(mcpfs, 'const x: number = ;\n', lang="typescript")
    assert res["exit_code"] == 1 and res["stderr"].startswith("/run/code/main.ts:1\n"), res
