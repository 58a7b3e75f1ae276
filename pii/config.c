/* The "pii" section of mcpfs's config. servers/config.c keeps the section
 * as JSON; its meaning is here, so the MCP client knows nothing of PII. */
#include <stdlib.h>
#include <string.h>

#include "pii.h"

static const char *const validator_names[] = {
    [PII_VALIDATE_NONE] = "none",	 [PII_VALIDATE_EMAIL] = "email",
    [PII_VALIDATE_PHONE] = "phone",	 [PII_VALIDATE_SSN] = "ssn",
    [PII_VALIDATE_CARD] = "credit_card", [PII_VALIDATE_IP] = "ip_address",
    [PII_VALIDATE_IBAN] = "iban",	 [PII_VALIDATE_LUHN] = "luhn",
};

static const char *const kind_names[PII_NBUILTIN] = {
    [PII_EMAIL] = "EMAIL",
    [PII_PHONE] = "PHONE",
    [PII_SSN] = "SSN",
    [PII_CREDIT_CARD] = "CREDIT_CARD",
    [PII_IP_ADDRESS] = "IP_ADDRESS",
    [PII_IBAN] = "IBAN",
};

void pii_config_free(struct pii_config *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->ncustom; i++) {
		free(c->custom[i].name);
		free(c->custom[i].regex);
	}
	free(c->custom);
	for (i = 0; i < c->nexempt; i++)
		free(c->exempt[i]);
	free(c->exempt);
	for (i = 0; i < c->ncustomers; i++)
		free(c->customers[i]);
	free(c->customers);
	free(c->customer_on);
	memset(c, 0, sizeof(*c));
}

static bool name_valid(const char *n)
{
	size_t i, len = strlen(n);

	if (len == 0 || len > PII_NAME_MAX || n[0] < 'A' || n[0] > 'Z')
		return false;
	for (i = 0; i < len; i++)
		if (!((n[i] >= 'A' && n[i] <= 'Z') || (n[i] >= '0' && n[i] <= '9') || n[i] == '_'))
			return false;
	return true;
}

static int builtin_kind(const char *n)
{
	int i;

	for (i = 0; i < PII_NBUILTIN; i++)
		if (!strcmp(kind_names[i], n))
			return i;
	return -1;
}

static int parse_kinds(const json_t *v, const char *origin, struct pii_config *c, struct err *err)
{
	const char *key;
	json_t *on;
	int k;

	if (!json_is_object(v))
		return err_set(err, EXIT_USAGE, "%s: pii.kinds: expected an object", origin);
	json_object_foreach((json_t *)v, key, on)
	{
		k = builtin_kind(key);
		if (k < 0 || !json_is_boolean(on))
			return err_set(err, EXIT_USAGE,
				       "%s: pii.kinds.%s: expected one of EMAIL, PHONE, SSN, "
				       "CREDIT_CARD, IP_ADDRESS, IBAN with true or false",
				       origin, key);
		c->kinds[k] = json_is_true(on);
	}
	return 0;
}

static int parse_custom(const json_t *v, const char *origin, struct pii_config *c, struct err *err)
{
	const char *name, *regex, *val;
	size_t i, k, n = json_array_size(v);
	json_t *e;

	if (!json_is_array(v))
		return err_set(err, EXIT_USAGE, "%s: pii.custom: expected an array", origin);
	c->custom = calloc(n ? n : 1, sizeof(*c->custom));
	if (!c->custom)
		return err_set(err, EXIT_FAILED, "out of memory");
	json_array_foreach(v, i, e)
	{
		struct pii_custom *pc = &c->custom[i];

		name = json_string_value(json_object_get(e, "name"));
		regex = json_string_value(json_object_get(e, "regex"));
		val = json_string_value(json_object_get(e, "validator"));
		if (!name || !name_valid(name) || builtin_kind(name) >= 0)
			return err_set(err, EXIT_USAGE,
				       "%s: pii.custom[%zu].name: expected [A-Z][A-Z0-9_]{0,31}, "
				       "not a built-in kind",
				       origin, i);
		for (k = 0; k < i; k++)
			if (!strcmp(c->custom[k].name, name))
				return err_set(err, EXIT_USAGE,
					       "%s: pii.custom[%zu].name: %s twice", origin, i,
					       name);
		if (!regex || !*regex)
			return err_set(err, EXIT_USAGE,
				       "%s: pii.custom[%zu].regex: expected a string", origin, i);
		pc->validator = PII_VALIDATE_NONE;
		if (json_object_get(e, "validator")) {
			for (k = 0; val && k < sizeof(validator_names) / sizeof(*validator_names);
			     k++)
				if (!strcmp(val, validator_names[k]))
					break;
			if (!val || k == sizeof(validator_names) / sizeof(*validator_names))
				return err_set(
				    err, EXIT_USAGE,
				    "%s: pii.custom[%zu].validator: expected none, email, "
				    "phone, ssn, credit_card, ip_address, iban or luhn",
				    origin, i);
			pc->validator = (enum pii_validator)k;
		}
		pc->name = strdup(name);
		pc->regex = strdup(regex);
		c->ncustom++;
		if (!pc->name || !pc->regex)
			return err_set(err, EXIT_FAILED, "out of memory");
	}
	return 0;
}

static int parse_exempt(const json_t *v, const char *origin, struct pii_config *c, struct err *err)
{
	size_t i, n = json_array_size(v);
	const char *s, *slash;
	json_t *e;

	if (!json_is_array(v))
		return err_set(err, EXIT_USAGE, "%s: pii.exempt: expected an array", origin);
	c->exempt = calloc(n ? n : 1, sizeof(*c->exempt));
	if (!c->exempt)
		return err_set(err, EXIT_FAILED, "out of memory");
	json_array_foreach(v, i, e)
	{
		s = json_string_value(e);
		slash = s ? strchr(s, '/') : NULL;
		if (!slash || slash == s || !slash[1])
			return err_set(
			    err, EXIT_USAGE,
			    "%s: pii.exempt[%zu]: expected \"server/tool\" or \"server/*\"", origin,
			    i);
		if (!(c->exempt[c->nexempt] = strdup(s)))
			return err_set(err, EXIT_FAILED, "out of memory");
		c->nexempt++;
	}
	return 0;
}

static int parse_customers(const json_t *v, const char *origin, struct pii_config *c,
			   struct err *err)
{
	size_t n = json_object_size(v);
	const char *key;
	json_t *on;

	if (!json_is_object(v))
		return err_set(err, EXIT_USAGE, "%s: pii.customers: expected an object", origin);
	c->customers = calloc(n ? n : 1, sizeof(*c->customers));
	c->customer_on = calloc(n ? n : 1, sizeof(*c->customer_on));
	if (!c->customers || !c->customer_on)
		return err_set(err, EXIT_FAILED, "out of memory");
	json_object_foreach((json_t *)v, key, on)
	{
		if (!json_is_boolean(on))
			return err_set(err, EXIT_USAGE,
				       "%s: pii.customers.%s: expected true or false", origin, key);
		if (!(c->customers[c->ncustomers] = strdup(key)))
			return err_set(err, EXIT_FAILED, "out of memory");
		c->customer_on[c->ncustomers++] = json_is_true(on);
	}
	return 0;
}

int pii_config_parse(const json_t *section, const char *origin, struct pii_config *out,
		     struct err *err)
{
	static const char *const known[] = {"enabled", "kinds", "custom", "exempt", "customers"};
	struct pii_config c = {0};
	const char *key;
	json_t *v;
	size_t i;
	int k;

	for (k = 0; k < PII_NBUILTIN; k++)
		c.kinds[k] = true;
	if (!section || json_is_null(section)) {
		*out = c;
		return 0;
	}
	if (!json_is_object(section))
		return err_set(err, EXIT_USAGE, "%s: pii: expected an object", origin);
	json_object_foreach((json_t *)section, key, v)
	{
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strcmp(key, known[i]))
				break;
		if (i == sizeof(known) / sizeof(known[0]))
			return err_set(err, EXIT_USAGE,
				       "%s: pii.%s: unknown field (enabled, kinds, custom, exempt, "
				       "customers)",
				       origin, key);
	}
	v = json_object_get(section, "enabled");
	if (v && !json_is_boolean(v))
		return err_set(err, EXIT_USAGE, "%s: pii.enabled: expected true or false", origin);
	/* A section that says nothing of "enabled" means PII on. */
	c.enabled = !v || json_is_true(v);
	if (((v = json_object_get(section, "kinds")) && parse_kinds(v, origin, &c, err) < 0) ||
	    ((v = json_object_get(section, "custom")) && parse_custom(v, origin, &c, err) < 0) ||
	    ((v = json_object_get(section, "exempt")) && parse_exempt(v, origin, &c, err) < 0) ||
	    ((v = json_object_get(section, "customers")) &&
	     parse_customers(v, origin, &c, err) < 0)) {
		pii_config_free(&c);
		return -1;
	}
	*out = c;
	return 0;
}

bool pii_config_active(const struct pii_config *c, const char *customer)
{
	size_t i;

	if (!customer)
		customer = "default";
	for (i = 0; i < c->ncustomers; i++)
		if (!strcmp(c->customers[i], customer))
			return c->customer_on[i];
	return c->enabled;
}

bool pii_config_exempt(const struct pii_config *c, const char *server, const char *tool)
{
	size_t i, sl = strlen(server);
	const char *e;

	for (i = 0; i < c->nexempt; i++) {
		e = c->exempt[i];
		if (strncmp(e, server, sl) || e[sl] != '/')
			continue;
		if (!strcmp(e + sl + 1, "*") || !strcmp(e + sl + 1, tool))
			return true;
	}
	return false;
}
