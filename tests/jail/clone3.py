# clone3 reports ENOSYS, so libc falls back to clone, whose flags are checked.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
args = (ctypes.c_uint64 * 11)()
args[0] = 0x10000000  # CLONE_NEWUSER
r = libc.syscall(435, ctypes.byref(args), ctypes.sizeof(args))
print("ALLOWED" if r >= 0 else errno.errorcode[ctypes.get_errno()])
