# The tool tree is read-only, both at /mcp and beside the program.
import errno
out = []
for p in ("/mcp/servers/evil.py", "/run/code/servers/evil.py"):
    try:
        open(p, "w").write("x")
        out.append("ALLOWED")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
print(" ".join(out))
