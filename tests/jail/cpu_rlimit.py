# CPU time past RLIMIT_CPU ends the run. The program lowers its limit to the
# shape the jail sets (hard = soft + 1 s) but 1 s soft, so that one core gets
# there in 2 s; at the jail's own values (ceil(timeout) + 1 s) only threads
# spinning on several cores get there before the wall-clock timeout.
import resource
resource.setrlimit(resource.RLIMIT_CPU, (1, 2))
print("SPINNING", flush=True)
while True:
    pass
