# TIOCSTI is refused, also with high bits set in the request; unfiltered, the
# kernel would answer ENOTTY (standard output is a pipe).
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_char_p]
out = []
for req in (0x5412, 0x5412 | (1 << 32)):
    r = libc.ioctl(1, req, b"x")
    out.append("ALLOWED" if r == 0 else errno.errorcode[ctypes.get_errno()])
print(" ".join(out))
