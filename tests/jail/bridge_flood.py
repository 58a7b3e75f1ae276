# Floods the run's bridge three ways at once, then checks that a plain call
# still works: 200 connections that never authenticate (half of them send
# 1 MiB of garbage without a line end), 8 authenticated connections each
# sending tool calls with 8 MiB arguments as fast as they go, and 400 calls
# in flight at once on one connection.
import json, os, socket, threading
from servers.everything import echo

path, token = os.environ["MCPFS_BRIDGE"], os.environ["MCPFS_BRIDGE_TOKEN"]
AUTH = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "auth",
                   "params": {"token": token}}).encode() + b"\n"
refused = []


def raw(garbage):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    if garbage:
        try:
            s.sendall(b"x" * (1 << 20))
        except OSError:
            refused.append(1)  # closed on us: what the bridge should do
    return s


def big_args(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    f = s.makefile("rb")
    s.sendall(AUTH)
    f.readline()
    pad = "y" * (8 << 20)
    for i in range(n):
        line = json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                           "params": {"server": "everything", "name": "echo",
                                      "arguments": {"message": pad}}}).encode() + b"\n"
        try:
            s.sendall(line)
        except OSError:
            return
    s.close()


def many_in_flight():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    f = s.makefile("rb")
    s.sendall(AUTH)
    f.readline()
    s.sendall(b"".join(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                                   "params": {"server": "everything", "name": "echo",
                                              "arguments": {"message": str(i)}}}).encode()
                       + b"\n" for i in range(400)))
    ok = sum("result" in json.loads(f.readline()) for _ in range(400))
    print("IN_FLIGHT_OK", ok)


idle = []
threads = [threading.Thread(target=lambda g=g: idle.append(raw(g))) for g in [True, False] * 100]
threads += [threading.Thread(target=big_args, args=(4,)) for _ in range(8)]
threads += [threading.Thread(target=many_in_flight)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("PLAIN", echo(message="still here"))
