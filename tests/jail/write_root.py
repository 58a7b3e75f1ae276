# The jail's root is read-only.
import errno
try:
    open("/escape", "w").write("x")
    print("ALLOWED")
except OSError as e:
    print(errno.errorcode[e.errno])
