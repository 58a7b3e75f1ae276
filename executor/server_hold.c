/* A customer's server holding its workspace (server_hold.h). */
#include "server_hold.h"

#include <stdlib.h>

#include "../workspaces/idle.h"
#include "../workspaces/workspace.h"

struct server_hold {
	struct server_proc base; /* first */
	struct server_proc *inner;
	int fd; /* ws_hold's */
};

static void held_signal(struct server_proc *p, int sig)
{
	struct server_hold *h = (struct server_hold *)p;

	h->inner->ops->signal(h->inner, sig);
}

static bool held_reap(struct server_proc *p, int ms, int *status)
{
	struct server_hold *h = (struct server_hold *)p;

	return h->inner->ops->reap(h->inner, ms, status);
}

/* Accepts a hold without a server (its start failed). */
static void held_free(struct server_proc *p)
{
	struct server_hold *h = (struct server_hold *)p;

	if (!h)
		return;
	if (h->inner)
		h->inner->ops->free(h->inner); /* the server is gone: its bind too */
	ws_release(h->fd); /* mounted still, as a run leaves it: the idle sweep takes it */
	free(h);
}

static const struct server_proc_ops held_ops = {
    .signal = held_signal,
    .reap = held_reap,
    .free = held_free,
};

struct server_hold *server_hold_take(const char *root, const char *customer, const char *name,
				     struct err *err)
{
	struct server_hold *h = calloc(1, sizeof(*h));
	struct ws ws;

	if (!h) {
		err_set(err, EXIT_UNREACHABLE, "server '%s': out of memory", name);
		return NULL;
	}
	h->base.ops = &held_ops;
	if (ws_open_held(root, customer, &ws, &h->fd, err) == 0)
		return h;
	free(h);
	err_prefix(err, "server '%s': workspace", name);
	if (err)
		err->status = EXIT_UNREACHABLE;
	return NULL;
}

struct server_proc *server_hold_wrap(struct server_hold *h, struct server_proc *p)
{
	if (!p) {
		held_free(&h->base);
		return NULL;
	}
	h->inner = p;
	return &h->base;
}
