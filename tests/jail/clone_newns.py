# clone with a namespace flag is refused by the filter (plain clone stays
# allowed). Unfiltered, the kernel answers NEWNS|FS with EINVAL before it
# checks any privilege, and lets an unprivileged user have NEWUSER.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SIGCHLD, CLONE_FS, CLONE_NEWNS, CLONE_NEWUSER = 17, 0x200, 0x00020000, 0x10000000
out = []
for flags in (CLONE_NEWNS | CLONE_FS, CLONE_NEWUSER):
    r = libc.syscall(56, flags | SIGCHLD, 0, 0, 0, 0)
    if r == 0:
        os._exit(0)
    if r > 0:
        os.waitpid(r, 0)
    out.append("ALLOWED" if r > 0 else errno.errorcode[ctypes.get_errno()])
print(" ".join(out))
