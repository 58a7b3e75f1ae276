# memfd is not bounded by rlimits; the cgroup still kills the run.
import os
fd = os.memfd_create("bomb")
chunk = b"x" * (16 << 20)
for _ in range(1024):
    os.write(fd, chunk)
print("ALLOWED")
