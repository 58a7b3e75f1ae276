# The operator's shared skills are read-only in the jail (the customer's own
# skills at /skills/<name> are writable: code may save a skill).
import errno
try:
    open("/skills/shared/evil.md", "w").write("x")
    print("ALLOWED")
except OSError as e:
    print(errno.errorcode[e.errno])
