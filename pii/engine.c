/* One process's PII state and the hook on the hub. Vaults stay open for the
 * engine's life: a session's tokens must mean the same on every call. */
#include "engine.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/id.h"
#include "../servers/hub.h"
#include "../workspaces/workspace.h"

#define VAULTS_MAX 4096 /* sessions one process holds open */

struct open_vault {
	char *key; /* customer '/' session, or customer '/' for the memory one */
	struct pii_vault *v;
};

struct pii_engine {
	const char *root;
	struct pii_config cfg;
	enum pii_mode mode;
	struct pii_scanner *scanner; /* NULL when PII is on for no one */
	pthread_mutex_t mu;
	struct open_vault *vaults; /* guarded by mu */
	size_t nvaults;
};

static bool on_for_anyone(const struct pii_engine *e)
{
	size_t i;

	if (e->mode != PII_MODE_CONFIG)
		return e->mode == PII_MODE_ON;
	for (i = 0; i < e->cfg.ncustomers; i++)
		if (e->cfg.customer_on[i])
			return true;
	return e->cfg.enabled;
}

struct pii_engine *pii_engine_new(const char *root, const json_t *section, const char *origin,
				  enum pii_mode mode, struct err *err)
{
	struct pii_engine *e = calloc(1, sizeof(*e));

	if (!e) {
		err_set(err, EXIT_FAILED, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&e->mu, NULL);
	e->root = root;
	e->mode = mode;
	if (pii_config_parse(section, origin, &e->cfg, err) < 0)
		goto out_free;
	if (on_for_anyone(e) && !(e->scanner = pii_scanner_new(&e->cfg, err)))
		goto out_free;
	return e;
out_free:
	pii_engine_free(e);
	return NULL;
}

void pii_engine_free(struct pii_engine *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nvaults; i++) {
		free(e->vaults[i].key);
		pii_vault_free(e->vaults[i].v);
	}
	free(e->vaults);
	pii_scanner_free(e->scanner);
	pii_config_free(&e->cfg);
	pthread_mutex_destroy(&e->mu);
	free(e);
}

bool pii_engine_active(const struct pii_engine *e, const char *customer)
{
	if (!e || !e->scanner)
		return false;
	if (e->mode != PII_MODE_CONFIG)
		return e->mode == PII_MODE_ON;
	return pii_config_active(&e->cfg, customer);
}

const struct pii_scanner *pii_engine_scanner(const struct pii_engine *e)
{
	return e->scanner;
}

/* The vault's file for @customer's @session. 0 or -1 with @err. */
static int vault_path(const struct pii_engine *e, const char *customer, const char *session,
		      char *out, size_t n, struct err *err)
{
	struct ws ws;

	if (!id_valid(session, "session", err))
		return -1;
	if (ws_open(e->root, customer, true, &ws, err) < 0)
		return -1;
	if (snprintf(out, n, "%s/%s.vault", ws.sessions, session) >= (int)n)
		return err_set(err, EXIT_FAILED, "%s: path too long", ws.sessions);
	return 0;
}

struct pii_vault *pii_engine_vault(struct pii_engine *e, const char *customer, const char *session,
				   struct err *err)
{
	char key[2 * ID_MAX + 4], path[PATH_MAX];
	struct open_vault *nv;
	struct pii_vault *v = NULL;
	size_t i;

	if (!customer)
		customer = "default";
	if (!id_valid(customer, "customer", err))
		return NULL;
	snprintf(key, sizeof(key), "%s/%s", customer, session ? session : "");
	pthread_mutex_lock(&e->mu);
	for (i = 0; i < e->nvaults; i++)
		if (!strcmp(e->vaults[i].key, key)) {
			v = e->vaults[i].v;
			goto out;
		}
	if (e->nvaults >= VAULTS_MAX) {
		err_set(err, EXIT_FAILED, "pii: more than %d sessions open in one process",
			VAULTS_MAX);
		goto out;
	}
	if (session && vault_path(e, customer, session, path, sizeof(path), err) < 0)
		goto out;
	nv = realloc(e->vaults, (e->nvaults + 1) * sizeof(*nv));
	if (!nv) {
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	e->vaults = nv;
	v = pii_vault_open(session ? path : NULL, err);
	if (!v)
		goto out;
	nv[e->nvaults].key = strdup(key);
	if (!nv[e->nvaults].key) {
		pii_vault_free(v);
		v = NULL;
		err_set(err, EXIT_FAILED, "out of memory");
		goto out;
	}
	nv[e->nvaults++].v = v;
out:
	pthread_mutex_unlock(&e->mu);
	return v;
}

static int hook_before(void *ctx, const struct hub_call *call, json_t **args, struct err *err)
{
	struct pii_engine *e = ctx;
	struct pii_vault *v;
	json_t *copy;

	if (!pii_engine_active(e, call->opts->customer))
		return 0;
	v = pii_engine_vault(e, call->opts->customer, call->opts->session, err);
	if (!v)
		return -1;
	/* The caller keeps its arguments as it wrote them (with tokens). */
	copy = json_deep_copy(*args);
	if (!copy)
		return err_set(err, EXIT_FAILED, "out of memory");
	if (pii_restore_json(e->scanner, v, copy, err) < 0) {
		json_decref(copy);
		err_prefix(err, "%s/%s: arguments", call->server, call->tool);
		return -1;
	}
	*args = copy;
	return 0;
}

/* A failed call's text comes from the server too: it is tokenized like a
 * result, and if that cannot be done, it is replaced. */
static void redact_error(struct pii_engine *e, struct pii_vault *v, struct err *err)
{
	struct err ignored = {0};
	struct buf out;

	buf_init(&out, ERR_TEXT_MAX);
	if (pii_redact(e->scanner, v, err->text, strlen(err->text), &out, NULL, &ignored) < 0)
		snprintf(err->text, sizeof(err->text),
			 "the call failed (its error text could "
			 "not be tokenized)");
	else
		snprintf(err->text, sizeof(err->text), "%s", out.data ? out.data : "");
	buf_free(&out);
}

static int hook_after(void *ctx, const struct hub_call *call, json_t **result, struct err *err)
{
	struct pii_engine *e = ctx;
	struct pii_vault *v;

	if (!pii_engine_active(e, call->opts->customer) ||
	    pii_config_exempt(&e->cfg, call->server, call->tool))
		return 0;
	v = pii_engine_vault(e, call->opts->customer, call->opts->session, err);
	if (!v) {
		/* Fail closed: an untokenized result never reaches the code. */
		json_decref(*result);
		*result = NULL;
		return -1;
	}
	if (!*result) {
		redact_error(e, v, err);
		return 0;
	}
	if (pii_redact_json(e->scanner, v, *result, err) < 0) {
		json_decref(*result);
		*result = NULL;
		err_prefix(err, "%s/%s: result", call->server, call->tool);
		return -1;
	}
	return 0;
}

int pii_engine_hook(struct pii_engine *e, struct hub *h)
{
	struct hub_hook hook = {
	    .order = HUB_ORDER_PII,
	    .before = hook_before,
	    .after = hook_after,
	    .ctx = e,
	};

	return hub_hook_add(h, &hook);
}

static int filter_field(struct pii_engine *e, struct pii_vault *v, json_t *result,
			const char *field, struct err *err)
{
	json_t *s = json_object_get(result, field);
	struct buf out;
	int rc = 0;

	if (!json_is_string(s))
		return 0;
	buf_init(&out, (size_t)1 << 31);
	if (pii_redact(e->scanner, v, json_string_value(s), json_string_length(s), &out, NULL,
		       err) < 0 ||
	    json_object_set_new(result, field, json_stringn(out.data ? out.data : "", out.len)) < 0)
		rc = -1;
	if (rc && !err->status)
		err_set(err, EXIT_FAILED, "out of memory");
	buf_free(&out);
	return rc;
}

int pii_engine_filter_output(void *ctx, const char *customer, const char *session, json_t *result,
			     struct err *err)
{
	static const char *const fields[] = {"stdout",	    "stderr",	 "output", "code",
					     "description", "arguments", "error"};
	struct pii_engine *e = ctx;
	struct pii_vault *v;
	size_t i;

	if (!pii_engine_active(e, customer))
		return 0;
	v = pii_engine_vault(e, customer, session, err);
	if (!v)
		return -1;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (filter_field(e, v, result, fields[i], err) < 0)
			return -1;
	return 0;
}
