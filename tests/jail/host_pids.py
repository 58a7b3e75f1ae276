# A fresh PID namespace: only the jail's pid 1 (the init that reaps, the
# program's parent) and the program itself are in /proc.
import os
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
ok = pids == [1, os.getpid()] and os.getppid() == 1
print("ISOLATED" if ok else "VISIBLE " + " ".join(map(str, pids)))
