# An i386 system call through int 0x80 kills the process (SIGSYS).
import ctypes, mmap
code = bytes([0xb8, 20, 0, 0, 0,  # mov eax, 20 (getpid on i386)
              0xcd, 0x80,         # int 0x80
              0xc3])              # ret
buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
buf.write(code)
addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
ctypes.CFUNCTYPE(ctypes.c_int)(addr)()
print("ALLOWED")
