# setns is refused by the filter: with a bad descriptor too, which the
# kernel itself answers with EBADF before it checks any privilege.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
out = []
for fd in (-1, os.open("/proc/self/ns/net", os.O_RDONLY)):
    r = libc.setns(fd, 0)
    out.append("ALLOWED" if r == 0 else errno.errorcode[ctypes.get_errno()])
print(" ".join(out))
