/* Network: the new network namespace has nothing but a loopback, brought up
 * so code may talk to itself; nothing leaves the jail. A server whose sandbox
 * shares the host's network (jail_spec.share_net) has no namespace of its own. */
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jail_i.h"

int jail_net_setup_child(struct jail *j, char *why, size_t n)
{
	struct ifreq ifr;
	int fd, rc = 0;

	if (j->spec->share_net)
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return jail_why(why, n, "socket(AF_INET)");
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		rc = jail_why(why, n, "ioctl(lo, SIOCGIFFLAGS)");
	} else {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			rc = jail_why(why, n, "ioctl(lo, SIOCSIFFLAGS, UP)");
	}
	close(fd);
	return rc;
}
