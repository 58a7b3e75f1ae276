#include "sigreset.h"

#include <signal.h>
#include <string.h>

int sigreset_all(void)
{
	struct sigaction dfl;
	sigset_t none;
	int sig;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL); /* fails only for numbers glibc reserves */
	sigemptyset(&none);
	return sigprocmask(SIG_SETMASK, &none, NULL);
}
