/* Call hooks and catalog listeners: two lists of registrations under one
 * lock. A call or a notification holds the registrations it uses (refs);
 * removal unlinks at once and waits for the holders, so a hook's ctx is never
 * used after hub_hook_remove returns. The lock is never held while a hook or
 * a listener runs. */
#define _GNU_SOURCE
#include "hub_hooks.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "hub.h"

struct hook_reg {
	int handle;
	bool listener;		 /* else a call hook */
	struct hub_hook hook;	 /* a call hook's */
	struct hub_listener lis; /* a listener's */
	unsigned refs;		 /* calls or notifications using it; ext.lock */
	struct hook_reg *next;	 /* ext.regs, sorted by hook.order; ext.lock */
};

struct hub_ext {
	pthread_mutex_t lock;
	pthread_cond_t released; /* a ref dropped */
	struct hook_reg *regs;	 /* hooks and listeners; hooks in order */
	size_t nhooks;
	int next_handle;
};

struct hub_ext *hub_ext_new(void)
{
	struct hub_ext *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->released, NULL);
	x->next_handle = 1;
	return x;
}

void hub_ext_free(struct hub_ext *x)
{
	struct hook_reg *r, *next;

	if (!x)
		return;
	for (r = x->regs; r; r = next) {
		next = r->next;
		free(r);
	}
	pthread_cond_destroy(&x->released);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

/* Link @r (a new registration) in order: hooks by order, a later one of the
 * same order after the earlier; listeners at the end. Returns its handle. */
static int add(struct hub_ext *x, struct hook_reg *r)
{
	struct hook_reg **pp;

	pthread_mutex_lock(&x->lock);
	if (!r->listener && x->nhooks >= HUB_MAX_HOOKS) {
		pthread_mutex_unlock(&x->lock);
		free(r);
		return -ENOSPC;
	}
	for (pp = &x->regs; *pp; pp = &(*pp)->next)
		if (!r->listener && ((*pp)->listener || (*pp)->hook.order > r->hook.order))
			break;
	r->next = *pp;
	*pp = r;
	r->handle = x->next_handle++;
	x->nhooks += !r->listener;
	pthread_mutex_unlock(&x->lock);
	return r->handle;
}

static void remove_handle(struct hub_ext *x, int handle)
{
	struct hook_reg **pp, *r = NULL;

	pthread_mutex_lock(&x->lock);
	for (pp = &x->regs; *pp; pp = &(*pp)->next)
		if ((*pp)->handle == handle) {
			r = *pp;
			*pp = r->next;
			x->nhooks -= !r->listener;
			break;
		}
	while (r && r->refs)
		pthread_cond_wait(&x->released, &x->lock);
	pthread_mutex_unlock(&x->lock);
	free(r);
}

int hub_ext_hook_add(struct hub_ext *x, const struct hub_hook *hook)
{
	struct hook_reg *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->hook = *hook;
	return add(x, r);
}

void hub_ext_hook_remove(struct hub_ext *x, int handle)
{
	remove_handle(x, handle);
}

int hub_ext_listen(struct hub_ext *x, const struct hub_listener *l)
{
	struct hook_reg *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->listener = true;
	r->lis = *l;
	return add(x, r);
}

void hub_ext_unlisten(struct hub_ext *x, int handle)
{
	remove_handle(x, handle);
}

static void put(struct hub_ext *x, struct hook_reg *const *regs, size_t n)
{
	size_t i;

	if (!n)
		return;
	pthread_mutex_lock(&x->lock);
	for (i = 0; i < n; i++)
		regs[i]->refs--;
	pthread_cond_broadcast(&x->released);
	pthread_mutex_unlock(&x->lock);
}

void hub_ext_notify(struct hub_ext *x, const char *server, uint64_t generation)
{
	struct hook_reg *r, *held[64];
	size_t n, i;
	bool more = true;
	int after = 0;

	/* In batches, so any number of listeners is told without allocating. */
	while (more) {
		n = 0;
		more = false;
		pthread_mutex_lock(&x->lock);
		for (r = x->regs; r; r = r->next) {
			if (!r->listener || r->handle <= after)
				continue;
			if (n == sizeof(held) / sizeof(held[0])) {
				more = true;
				break;
			}
			r->refs++;
			held[n++] = r;
		}
		pthread_mutex_unlock(&x->lock);
		for (i = 0; i < n; i++) {
			if (held[i]->lis.catalog_changed)
				held[i]->lis.catalog_changed(held[i]->lis.ctx, server, generation);
			if (held[i]->handle > after)
				after = held[i]->handle;
		}
		put(x, held, n);
	}
}

int hub_chain_begin(struct hub_ext *x, struct hub_chain *ch, const struct hub_call *call,
		    json_t **args, struct err *err)
{
	struct hook_reg *r;
	json_t *in;

	ch->ext = x;
	ch->n = ch->ran = 0;
	ch->ended = false;
	pthread_mutex_lock(&x->lock);
	for (r = x->regs; r && !r->listener; r = r->next) {
		r->refs++;
		ch->regs[ch->n++] = r;
	}
	pthread_mutex_unlock(&x->lock);
	for (; ch->ran < ch->n; ch->ran++) {
		r = ch->regs[ch->ran];
		if (!r->hook.before)
			continue;
		in = *args;
		if (r->hook.before(r->hook.ctx, call, args, err) < 0) {
			if (*args != in) /* a refusal keeps the caller's arguments */
				json_decref(*args);
			*args = in;
			if (!err->text[0])
				err_set(err, EXIT_FAILED, "tools/call '%s' refused", call->tool);
			return -1;
		}
		if (!*args) {
			*args = in;
		} else if (*args != in) {
			json_decref(in);
		}
	}
	return 0;
}

json_t *hub_chain_end(struct hub_chain *ch, const struct hub_call *call, json_t *result,
		      struct err *err)
{
	struct hook_reg *r;
	size_t i;

	if (ch->ended)
		return result;
	ch->ended = true;
	for (i = ch->ran; i-- > 0;) {
		r = ch->regs[i];
		if (!r->hook.after)
			continue;
		if (r->hook.after(r->hook.ctx, call, &result, err) < 0 && result) {
			json_decref(result);
			result = NULL;
		}
		if (!result && !err->text[0])
			err_set(err, EXIT_FAILED, "tools/call '%s' failed in a hook", call->tool);
	}
	put(ch->ext, ch->regs, ch->n);
	return result;
}
