# Only unix and IP sockets: no raw packets, no netlink.
import errno, socket
out = []
for fam, typ in ((socket.AF_PACKET, socket.SOCK_RAW), (socket.AF_NETLINK, socket.SOCK_RAW)):
    try:
        socket.socket(fam, typ)
        out.append("ALLOWED")
    except OSError as e:
        out.append(errno.errorcode[e.errno])
print(" ".join(out))
