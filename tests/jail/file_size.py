# Writing past RLIMIT_FSIZE fails with EFBIG (Python ignores SIGXFSZ). The
# writes are sparse, on /tmp: the 64 MiB tmpfs holds them, so only the file
# size limit can refuse. A byte just below the limit is written; two bytes
# there are cut to one; a byte at the limit, and a truncate past it, fail.
import errno, os
LIMIT = @LIMIT@
fd = os.open("/tmp/big", os.O_WRONLY | os.O_CREAT, 0o600)
out = [str(os.pwrite(fd, b"x", LIMIT - 1)), str(os.pwrite(fd, b"yz", LIMIT - 1))]
for act in (lambda: os.pwrite(fd, b"x", LIMIT), lambda: os.ftruncate(fd, LIMIT + 1)):
    try:
        act()
        out.append("ALLOWED")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
print(" ".join(out))
