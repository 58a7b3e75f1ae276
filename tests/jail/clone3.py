# clone3 reports ENOSYS, so libc falls back to clone, whose flags are checked.
# Unfiltered, the kernel has clone3 and lets an unprivileged user have NEWUSER.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
args = (ctypes.c_uint64 * 11)()
args[0] = 0x10000000  # CLONE_NEWUSER
args[4] = 17  # exit_signal: SIGCHLD
r = libc.syscall(435, ctypes.byref(args), ctypes.sizeof(args))
if r == 0:
    os._exit(0)
if r > 0:
    os.waitpid(r, 0)
print("ALLOWED" if r > 0 else errno.errorcode[ctypes.get_errno()])
