# Another run's bridge socket, by the path the host sees it at, does not
# exist in this jail.
import errno, os, socket
path = "@SOCKET@"
try:
    os.stat(path)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    print("ALLOWED")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e)))
