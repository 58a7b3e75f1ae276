# What the jail's root holds, and every mount in its mount table (root in
# the source file system, mount point, type).
import json, os
view = {d: sorted(os.listdir(d)) for d in ("/", "/dev", "/etc", "/run", "/run/code",
                                            "/run/mcpfs", "/tmp")}
view["links"] = {n: os.readlink("/" + n) for n in view["/"] if os.path.islink("/" + n)}
mounts = []
for line in open("/proc/self/mountinfo"):
    f = line.split()
    sep = f.index("-")
    mounts.append([f[3], f[4], f[sep + 1]])
view["mounts"] = mounts
print(json.dumps(view))
