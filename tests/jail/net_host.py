# The host's loopback is not the jail's: a listener there cannot be reached.
import errno, socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(5)
try:
    s.connect(("127.0.0.1", @PORT@))
    print("ALLOWED")
except OSError as e:
    print(errno.errorcode.get(e.errno, "TIMEOUT") if e.errno else "TIMEOUT")
