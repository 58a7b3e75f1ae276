# unshare is refused by the filter: CLONE_NEWUSER, which an unprivileged
# user may have unfiltered, and an unknown flag, which the kernel itself
# answers with EINVAL.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
out = []
for flags in (0x10000000 | 0x1, 0x10000000):  # CLONE_NEWUSER | a signal bit, CLONE_NEWUSER
    r = libc.unshare(flags)
    out.append("ALLOWED" if r == 0 else errno.errorcode[ctypes.get_errno()])
print(" ".join(out))
