# A terminal request past descriptor 2 gets ENOTTY from the filter and
# reaches no file (the jail has no terminal there): on a descriptor that is
# not open the kernel would answer EBADF. On 0-2 it reaches the file, here a
# closed standard input: EBADF.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_char_p]
TCGETS = 0x5401
os.close(0)
out = []
for fd in (99, 0):
    r = libc.ioctl(fd, TCGETS, bytes(64))
    out.append("ALLOWED" if r == 0 else errno.errorcode[ctypes.get_errno()])
print(" ".join(out))
