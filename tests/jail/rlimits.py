# The rlimits the jail set, as the program sees them: name, soft, hard.
import resource
for name in ("RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_DATA",
             "RLIMIT_CORE", "RLIMIT_MEMLOCK"):
    print(name, *resource.getrlimit(getattr(resource, name)))
