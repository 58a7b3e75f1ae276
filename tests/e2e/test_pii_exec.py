"""PII tokens end to end: a jailed program reads an entity holding an email
from the real server-memory (and sees a token), writes it into another entity
(the server stores the real email), prints it (the caller sees the token);
the session record holds only tokens; another session's token is refused;
`mcpfs call` and `mcpfs pii restore` share the session's vault."""
import json
import stat

from conftest import memory_server, server_dir
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
