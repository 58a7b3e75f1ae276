# userfaultfd is refused.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(323, 0)
print("ALLOWED" if r >= 0 else errno.errorcode[ctypes.get_errno()])
