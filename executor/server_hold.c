/* A customer's server holding its workspace (server_hold.h). */
#include "server_hold.h"

#include <stdlib.h>

#include "../workspaces/idle.h"
#include "../workspaces/workspace.h"

struct proc_held {
	struct server_proc base; /* first */
	struct server_proc *inner;
	int hold;
};

int server_hold_workspace(const char *root, const struct server_config *sc, int *hold,
			  struct err *err)
{
	struct ws ws;

	*hold = -1;
	if (!ws_made(root, sc->customer) || ws_open_held(root, sc->customer, &ws, hold, err) == 0)
		return 0;
	err_prefix(err, "server '%s': workspace", sc->name);
	if (err)
		err->status = EXIT_UNREACHABLE;
	return -1;
}

static void held_signal(struct server_proc *p, int sig)
{
	struct proc_held *h = (struct proc_held *)p;

	h->inner->ops->signal(h->inner, sig);
}

static bool held_reap(struct server_proc *p, int ms, int *status)
{
	struct proc_held *h = (struct proc_held *)p;

	return h->inner->ops->reap(h->inner, ms, status);
}

static void held_free(struct server_proc *p)
{
	struct proc_held *h = (struct proc_held *)p;

	if (!h)
		return;
	h->inner->ops->free(h->inner); /* the server is gone: the sweep may unmount */
	ws_release(h->hold);
	free(h);
}

static const struct server_proc_ops held_ops = {
    .signal = held_signal,
    .reap = held_reap,
    .free = held_free,
};

struct server_proc *server_hold_wrap(struct server_proc *p, int hold, const char *name,
				     struct err *err)
{
	struct proc_held *h = p ? calloc(1, sizeof(*h)) : NULL;

	if (!h) {
		if (p) {
			p->ops->free(p);
			err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", name);
		}
		ws_release(hold);
		return NULL;
	}
	h->base.ops = &held_ops;
	h->inner = p;
	h->hold = hold;
	return &h->base;
}
