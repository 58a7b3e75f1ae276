# The customer's skills are read-only in the jail.
import errno
try:
    open("/skills/evil.md", "w").write("x")
    print("ALLOWED")
except OSError as e:
    print(errno.errorcode[e.errno])
