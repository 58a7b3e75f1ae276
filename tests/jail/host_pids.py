# A fresh PID namespace: only the jail's own process is in /proc.
import os
pids = [p for p in os.listdir("/proc") if p.isdigit()]
print("ISOLATED" if pids == ["1"] else "VISIBLE " + " ".join(pids))
