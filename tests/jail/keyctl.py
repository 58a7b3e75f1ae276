# keyctl is refused (the kernel keyring is shared with the host); unfiltered,
# any user may look up its session keyring.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(250, 0, -3, 0)  # KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING
print("ALLOWED" if r >= 0 else errno.errorcode[ctypes.get_errno()])
