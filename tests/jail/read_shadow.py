# The host's /etc/shadow is not in the jail's root.
import errno
try:
    open("/etc/shadow").read()
    print("ALLOWED")
except OSError as e:
    print(errno.errorcode[e.errno])
