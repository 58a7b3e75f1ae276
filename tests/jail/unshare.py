# unshare(CLONE_NEWUSER) is refused.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
r = libc.unshare(0x10000000)
print("ALLOWED" if r == 0 else errno.errorcode[ctypes.get_errno()])
