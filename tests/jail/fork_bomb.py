# A fork bomb stops at the run's pids limit; the children die with the run.
import errno, os, time
n = 0
while n < 100000:
    try:
        pid = os.fork()
    except OSError as e:
        print(errno.errorcode[e.errno], flush=True)
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    n += 1
