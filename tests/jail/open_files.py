# Opening files ends at RLIMIT_NOFILE with EMFILE; the last descriptor that
# opened is the highest the limit allows (the kernel hands out the lowest free).
import errno, os
last = -1
try:
    while True:
        last = os.open("/dev/null", os.O_RDONLY)
except OSError as e:
    print(errno.errorcode[e.errno], last)
