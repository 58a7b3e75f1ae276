# io_uring_setup is refused; unfiltered, any user may set up a ring here
# (kernel.io_uring_disabled 0).
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
params = ctypes.create_string_buffer(120)
r = libc.syscall(425, 4, params)
print("ALLOWED" if r >= 0 else errno.errorcode[ctypes.get_errno()])
