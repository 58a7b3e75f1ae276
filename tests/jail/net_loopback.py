# The jail's own loopback works: a listener on 127.0.0.1, on the port the
# host's listener holds (free here: another network namespace), accepts the
# jail's own connection.
import socket
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", @PORT@))
srv.listen(1)
c = socket.create_connection(("127.0.0.1", @PORT@), timeout=5)
a, _ = srv.accept()
c.sendall(b"ping")
print(a.recv(4).decode())
