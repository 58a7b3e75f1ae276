# The environment of every process the jail can see (/proc/PID/environ; a
# refusal is recorded as its errno, nothing else is caught), the program's
# own os.environ and pid.
import errno, json, os
procs = {}
for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
    try:
        raw = open(f"/proc/{pid}/environ", "rb").read().decode()
    except PermissionError as e:
        procs[pid] = errno.errorcode[e.errno]
        continue
    procs[pid] = dict(kv.split("=", 1) for kv in raw.split("\0") if kv)
print(json.dumps({"proc": procs, "environ": dict(os.environ), "pid": os.getpid()}))
