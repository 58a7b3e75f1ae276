# ptrace is refused; unfiltered, any process may ask its parent to trace it.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
r = libc.ptrace(0, 0, None, None)  # PTRACE_TRACEME
print("ALLOWED" if r == 0 else errno.errorcode[ctypes.get_errno()])
