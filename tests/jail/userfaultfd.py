# userfaultfd is refused by the filter. Unfiltered, UFFD_USER_MODE_ONLY is
# open to unprivileged users whatever vm.unprivileged_userfaultfd says.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
UFFD_USER_MODE_ONLY = 1
r = libc.syscall(323, UFFD_USER_MODE_ONLY | os.O_CLOEXEC)
print("ALLOWED" if r >= 0 else errno.errorcode[ctypes.get_errno()])
