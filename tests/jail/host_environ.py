# No process visible in the jail carries the host's environment (the test
# puts MCPFS_HOST_SECRET in the environment of mcpfs itself).
import os
seen = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            if b"MCPFS_HOST_SECRET" in open(f"/proc/{pid}/environ", "rb").read():
                seen.append(pid)
        except OSError:
            pass
print("LEAKED " + " ".join(seen) if seen else "HIDDEN")
