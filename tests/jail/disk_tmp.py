# /tmp is a size-capped tmpfs.
import errno
chunk = b"x" * (1 << 20)
try:
    with open("/tmp/fill", "wb") as f:
        for _ in range(1024):
            f.write(chunk)
            f.flush()
    print("ALLOWED")
except OSError as e:
    print(errno.errorcode[e.errno])
