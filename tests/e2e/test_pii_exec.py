"""PII tokens end to end: a jailed program reads an entity holding an email
from the real server-memory (and sees a token), writes it into another entity
(the server stores the real email), prints it (the caller sees the token);
the session record holds only tokens; another session's token is refused;
`mcpfs call` and `mcpfs pii restore` share the session's vault. Values held
in JSON numbers and object keys (server-filesystem reading a JSON file) are
tokens too, and go back to the server as they were; the run's stderr is
tokenized; `--pii on` works over a config that has PII off; no value reaches
mcpfs's logs or the session's records."""
import json
import stat

from conftest import FILESYSTEM, memory_server, server_dir
from conftest_executor import run_code

EMAIL = "alice.liddell@example.com"
SECRET_CARD = "4111 1111 1111 1111"

READ_WRITE = """
from servers.memory import open_nodes, create_entities
g = open_nodes(names=["alice"])
obs = g["entities"][0]["observations"][0]
email = obs.split("email: ")[1]
print("saw", email)
create_entities(entities=[{"name": "copy", "entityType": "person",
                           "observations": ["contact " + email]}])
print("and wrote", "bob" + "@example.org")
"""

FOREIGN = """
from servers.memory import create_entities
try:
    create_entities(entities=[{"name": "x", "entityType": "p", "observations": ["[EMAIL_1]"]}])
    print("accepted")
except Exception as e:
    print("refused:", e)
"""


def pii_config(mcpfs, pii=None):
    cfg = {"mcpServers": {"memory": memory_server(mcpfs.tmp)},
           "pii": pii if pii is not None else {"enabled": True}}
    mcpfs.config_path.write_text(json.dumps(cfg))


def memory_file(mcpfs):
    return server_dir(mcpfs.tmp) / "memory.jsonl"


def seed(mcpfs):
    ents = {"entities": [{"name": "alice", "entityType": "person",
                          "observations": [f"email: {EMAIL}", f"card {SECRET_CARD}"]}]}
    out = mcpfs.json("call", "memory", "create_entities", json.dumps(ents))
    # The caller of `mcpfs call` sees tokens too, and the server the real values.
    assert EMAIL not in json.dumps(out) and "[EMAIL_1]" in json.dumps(out), out
    assert EMAIL in memory_file(mcpfs).read_text()


def sessions(mcpfs, customer="default"):
    return mcpfs.root / "workspaces" / customer / "sessions"


def test_jailed_program_moves_an_email_it_never_sees(mcpfs):
    pii_config(mcpfs)
    seed(mcpfs)
    p, res = run_code(mcpfs, READ_WRITE, "--session", "s1")
    assert res["exit_code"] == 0, res
    assert res["stdout"] == "saw [EMAIL_1]\nand wrote [EMAIL_2]\n", res
    memory = memory_file(mcpfs).read_text()
    assert f"contact {EMAIL}" in memory, memory
    assert "[EMAIL_" not in memory, memory
    # The record holds tokens only; the vault holds the values, 0600.
    record = (sessions(mcpfs) / "s1.json").read_text()
    assert "[EMAIL_1]" in record and EMAIL not in record and "bob@example.org" not in record
    vault = sessions(mcpfs) / "s1.vault"
    assert stat.S_IMODE(vault.stat().st_mode) == 0o600
    assert EMAIL in vault.read_text()
    shown = mcpfs.run("session", "show", "default", "s1", "--json", check=0).stdout
    assert EMAIL not in shown
    # The session's tokens restore on the command line, for the operator.
    p = mcpfs.run("pii", "restore", "--session", "s1", input="to [EMAIL_1]\n", check=0)
    assert p.stdout == f"to {EMAIL}\n"


def test_text_output_is_tokenized_too(mcpfs):
    pii_config(mcpfs)
    seed(mcpfs)
    p, _ = run_code(mcpfs, READ_WRITE, "--session", "s1", json_out=False)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "saw [EMAIL_1]\nand wrote [EMAIL_2]\n", p.stdout


def test_another_sessions_token_is_refused(mcpfs):
    pii_config(mcpfs)
    seed(mcpfs)
    _, res = run_code(mcpfs, READ_WRITE, "--session", "s1")
    assert res["exit_code"] == 0, res
    _, res = run_code(mcpfs, FOREIGN, "--session", "s2")
    assert res["stdout"].startswith("refused:"), res
    assert "[EMAIL_1] is not a token of this session" in res["stdout"], res
    assert EMAIL not in res["stdout"] + res["stderr"]
    assert '"x"' not in memory_file(mcpfs).read_text()
    p = mcpfs.run("pii", "restore", "--session", "s2", input="[EMAIL_1]", check=1)
    assert "not a token of this session" in p.stderr and EMAIL not in p.stderr


def test_call_with_a_session_shares_its_vault(mcpfs):
    pii_config(mcpfs)
    seed(mcpfs)
    out = mcpfs.json("call", "memory", "open_nodes", '{"names": ["alice"]}', "--session", "s9")
    text = json.dumps(out)
    assert "[EMAIL_1]" in text and "[CREDIT_CARD_1]" in text and EMAIL not in text, text
    # A token of s9 as an argument reaches the server as the value.
    ents = {"entities": [{"name": "back", "entityType": "p", "observations": ["[EMAIL_1]"]}]}
    mcpfs.run("call", "memory", "create_entities", json.dumps(ents), "--session", "s9", check=0)
    memory = memory_file(mcpfs).read_text()
    assert json.dumps(["[EMAIL_1]"]) not in memory and memory.count(EMAIL) == 2, memory


def test_switches_exemptions_and_customers(mcpfs):
    # Off per run.
    pii_config(mcpfs)
    seed(mcpfs)
    out = mcpfs.json("call", "memory", "open_nodes", '{"names": ["alice"]}', "--pii", "off")
    assert EMAIL in json.dumps(out)
    # A kind switched off, and a tool exempt.
    pii_config(mcpfs, {"kinds": {"CREDIT_CARD": False}, "exempt": ["memory/read_graph"]})
    out = json.dumps(mcpfs.json("call", "memory", "open_nodes", '{"names": ["alice"]}'))
    assert "[EMAIL_1]" in out and SECRET_CARD in out, out
    assert EMAIL in json.dumps(mcpfs.json("call", "memory", "read_graph"))
    # Off in the config, on for one customer (per-customer memory servers
    # are not needed: the switch is the hook's).
    pii_config(mcpfs, {"enabled": False, "customers": {"acme": True}})
    assert EMAIL in json.dumps(mcpfs.json("call", "memory", "open_nodes", '{"names": ["alice"]}'))
    out = mcpfs.json("call", "memory", "open_nodes", '{"names": ["alice"]}', "--customer", "acme")
    assert EMAIL not in json.dumps(out)
    # A bad section is a usage error naming the field.
    pii_config(mcpfs, {"kinds": {"EMAILS": True}})
    p = mcpfs.run("call", "memory", "read_graph", check=2)
    assert "pii.kinds.EMAILS" in p.stderr


NUMBERS_AND_KEYS = """
import json, sys
from servers.files import read_text_file, write_file
doc = json.loads(read_text_file(path=SRC)["content"])
print(json.dumps(doc, sort_keys=True))
print("to stderr:", list(doc)[0], "phone", doc[list(doc)[0]]["phone"], file=sys.stderr)
write_file(path=DST, content=json.dumps(doc))
"""
CARD_NUMBER = 4111111111111111
PHONE_NUMBER = 4155552671
SIZE = 5368709120  # 5 GiB, shaped like a North American phone number


def files_config(mcpfs, pii=None):
    files = server_dir(mcpfs.tmp, "files")
    cfg = {"mcpServers": {"files": {"command": "node", "args": [FILESYSTEM, str(files)],
                                    "sandbox": {"rw": [str(files)]}}},
           "pii": pii if pii is not None else {"enabled": True}}
    mcpfs.config_path.write_text(json.dumps(cfg))
    return files


def logs_and_records(mcpfs):
    """mcpfs's server logs and the session records (task records are in
    them): every file but the vaults."""
    out = []
    for f in [*(mcpfs.root / "logs").glob("*"),
              *(mcpfs.root / "workspaces").glob("*/sessions/*")]:
        if f.is_file() and not f.name.endswith((".vault", ".vault.lock")):
            out.append((f, f.read_bytes().decode(errors="replace")))
    return out


def test_numbers_and_keys_are_tokens_and_go_back_as_they_were(mcpfs):
    files = files_config(mcpfs)
    doc = {EMAIL: {"card": CARD_NUMBER, "phone": PHONE_NUMBER, "size": SIZE, "visits": 3}}
    (files / "in.json").write_text(json.dumps(doc, indent=2))
    code = NUMBERS_AND_KEYS.replace("SRC", repr(str(files / "in.json"))).replace(
        "DST", repr(str(files / "out.json")))
    _, res = run_code(mcpfs, code, "--session", "n1")
    assert res["exit_code"] == 0, res
    # The program saw tokens where the key and the numbers were; a size
    # that only looks like a phone stays a number.
    seen = json.loads(res["stdout"])
    assert seen == {"[EMAIL_1]": {"card": "[CREDIT_CARD_1]", "phone": "[PHONE_1]",
                                  "size": SIZE, "visits": 3}}, res
    assert res["stderr"] == "to stderr: [EMAIL_1] phone [PHONE_1]\n", res
    # The server got the key and the numbers back, numbers as numbers.
    assert json.loads((files / "out.json").read_text()) == doc
    # Nothing mcpfs keeps on disk but the vault holds a value.
    for f, text in logs_and_records(mcpfs):
        for secret in (EMAIL, str(CARD_NUMBER), str(PHONE_NUMBER)):
            assert secret not in text, (f, secret)


def test_stderr_is_tokenized(mcpfs):
    pii_config(mcpfs)
    seed(mcpfs)
    # A value the program makes itself (no tool's result tokenized it).
    code = READ_WRITE + 'import sys\nprint("made", "carol" + "@example.net", file=sys.stderr)\n'
    p, _ = run_code(mcpfs, code, "--session", "e1", json_out=False)
    assert p.returncode == 0, p.stderr
    assert "made [EMAIL_3]" in p.stderr and "carol@" not in p.stderr, p.stderr
    _, res = run_code(mcpfs, code, "--session", "e1")
    assert res["stderr"] == "made [EMAIL_3]\n", res
    assert "carol@" not in (sessions(mcpfs) / "e1.json").read_text()


def test_pii_on_for_a_run_over_a_config_that_has_it_off(mcpfs):
    pii_config(mcpfs, {"enabled": False})
    seed_off = {"entities": [{"name": "alice", "entityType": "person",
                              "observations": [f"email: {EMAIL}"]}]}
    mcpfs.run("call", "memory", "create_entities", json.dumps(seed_off), check=0)
    _, res = run_code(mcpfs, READ_WRITE, "--session", "o1")
    assert res["stdout"].startswith(f"saw {EMAIL}\n"), res
    _, res = run_code(mcpfs, READ_WRITE, "--session", "o2", "--pii", "on")
    assert res["exit_code"] == 0, res
    assert res["stdout"] == "saw [EMAIL_1]\nand wrote [EMAIL_2]\n", res
    assert EMAIL not in (sessions(mcpfs) / "o2.json").read_text()
    assert (sessions(mcpfs) / "o2.vault").exists() and not (sessions(mcpfs) / "o1.vault").exists()


def test_no_value_in_logs_or_records(mcpfs):
    pii_config(mcpfs)
    seed(mcpfs)
    # The program moves the email, prints it to stderr, and makes the server
    # fail with an error that names it (the server's error text is tokenized).
    code = READ_WRITE + """
import sys
from servers.memory import add_observations
print(email, file=sys.stderr)
try:
    add_observations(observations=[{"entityName": email, "contents": ["x"]}])
except Exception as e:
    print("failed:", e, file=sys.stderr)
"""
    _, res = run_code(mcpfs, code, "--session", "l1")
    assert res["exit_code"] == 0, res
    assert "name [EMAIL_1] not found" in res["stderr"], res
    mcpfs.run("call", "memory", "open_nodes", '{"names": ["alice"]}', "--session", "l1", check=0)
    found = logs_and_records(mcpfs)
    assert any("logs" in f.parts for f, _ in found), found
    assert (sessions(mcpfs) / "l1.json") in [f for f, _ in found], found
    for f, text in found:
        for secret in (EMAIL, SECRET_CARD, "bob@example.org"):
            assert secret not in text, (f, secret)
