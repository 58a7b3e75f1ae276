# Filling the workspace ends at the file size limit or the customer's quota.
import errno, os
chunk = b"x" * (1 << 20)
try:
    with open("fill", "wb") as f:
        for _ in range(2048):
            f.write(chunk)
            f.flush()
    print("ALLOWED")
except OSError as e:
    print(errno.errorcode[e.errno])
finally:
    os.unlink("fill")
