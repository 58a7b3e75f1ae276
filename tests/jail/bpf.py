# bpf is refused by the filter. Unfiltered, the kernel reads the attributes
# first and refuses map type 0 (unspecified) with EINVAL.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
attr = ctypes.create_string_buffer(128)
r = libc.syscall(321, 0, attr, 128)  # BPF_MAP_CREATE
print("ALLOWED" if r >= 0 else errno.errorcode[ctypes.get_errno()])
