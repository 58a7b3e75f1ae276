# A grandchild that detaches and outlives its parent dies with the run.
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)
time.sleep(0.2)
print("PARENT EXITS", flush=True)
