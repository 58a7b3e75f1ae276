# The run's own bridge refuses a connection without the run's token.
import json, os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ["MCPFS_BRIDGE"])
s.sendall(b'{"jsonrpc":"2.0","id":0,"method":"auth","params":{"token":"guess"}}\n')
f = s.makefile("rb")
reply = json.loads(f.readline())
try:
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"server":"everything",'
              b'"name":"echo","arguments":{"message":"x"}}}\n')
    rest = f.read()
except (BrokenPipeError, ConnectionResetError):
    rest = b""
print("REFUSED" if "error" in reply and not rest else "ALLOWED")
