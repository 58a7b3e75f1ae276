# Heap past the run's memory limit: the cgroup kills the run.
chunks = []
for _ in range(1024):
    chunks.append(bytearray(16 << 20))
print("ALLOWED")
