# Three spinning children, a grandchild that left for a session of its own
# and spins, and the parent spinning too: the timeout ends them all.
import os
r, w = os.pipe()
for _ in range(3):
    if os.fork() == 0:
        while True:
            pass
if os.fork() == 0:
    if os.fork() == 0:
        os.setsid()
        os.write(w, b"1" if os.getsid(0) == os.getpid() else b"0")
        while True:
            pass
    os._exit(0)
os.wait()  # the grandchild's parent: gone, the grandchild reparented
print("SPINNING", "DETACHED" if os.read(r, 1) == b"1" else "ATTACHED", flush=True)
while True:
    pass
