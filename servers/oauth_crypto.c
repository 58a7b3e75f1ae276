#define _GNU_SOURCE
#include "oauth_crypto.h"

#include "crypto_lib.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *oauth_b64(const void *data, size_t len)
{
	const struct crypto_lib *c = crypto_lib_load(NULL);
	char *out;
	int n;

	if (!c || len > (1u << 28))
		return NULL;
	out = malloc(4 * ((len + 2) / 3) + 1);
	if (!out)
		return NULL;
	n = c->EVP_EncodeBlock((unsigned char *)out, data, (int)len);
	out[n] = '\0';
	return out;
}

char *oauth_b64url(const void *data, size_t len)
{
	char *out = oauth_b64(data, len), *p;
	size_t n;

	if (!out)
		return NULL;
	for (p = out; *p; p++) {
		if (*p == '+')
			*p = '-';
		else if (*p == '/')
			*p = '_';
	}
	n = strlen(out);
	while (n && out[n - 1] == '=')
		out[--n] = '\0';
	return out;
}

char *oauth_random_text(size_t n)
{
	const struct crypto_lib *c = crypto_lib_load(NULL);
	unsigned char bytes[64];

	if (!c || n > sizeof(bytes) || c->RAND_bytes(bytes, (int)n) != 1)
		return NULL;
	return oauth_b64url(bytes, n);
}

char *oauth_pkce_challenge(const char *verifier)
{
	const struct crypto_lib *c = crypto_lib_load(NULL);
	unsigned char md[32];

	if (!c || !c->EVP_Digest(verifier, strlen(verifier), md, NULL, c->EVP_sha256(), NULL))
		return NULL;
	return oauth_b64url(md, sizeof(md));
}

static const struct jwt_alg {
	const char *name;
	size_t md;	/* offset of its EVP_sha* in struct crypto_lib */
	int key_type;	/* EVP_PKEY_EC or EVP_PKEY_RSA */
	size_t ec_half; /* bytes of r and of s in a JWS ECDSA signature; 0: not EC */
	bool pss;
} jwt_algs[] = {
#define MD(f) offsetof(struct crypto_lib, f)
    {"ES256", MD(EVP_sha256), EVP_PKEY_EC, 32, false},
    {"ES384", MD(EVP_sha384), EVP_PKEY_EC, 48, false},
    {"RS256", MD(EVP_sha256), EVP_PKEY_RSA, 0, false},
    {"RS384", MD(EVP_sha384), EVP_PKEY_RSA, 0, false},
    {"RS512", MD(EVP_sha512), EVP_PKEY_RSA, 0, false},
    {"PS256", MD(EVP_sha256), EVP_PKEY_RSA, 0, true},
#undef MD
};

/* JWS wants ECDSA signatures as r || s, fixed width (RFC 7518 3.4); OpenSSL
 * gives DER. Rewrites @sig in place; returns the new length or 0. */
static size_t ecdsa_der_to_jose(const struct crypto_lib *c, unsigned char *sig, size_t len,
				size_t half)
{
	const unsigned char *p = sig;
	ECDSA_SIG *es = c->d2i_ECDSA_SIG(NULL, &p, (long)len);
	const BIGNUM *r, *s;
	size_t out = 0;

	if (!es)
		return 0;
	c->ECDSA_SIG_get0(es, &r, &s);
	if (c->BN_bn2binpad(r, sig, (int)half) == (int)half &&
	    c->BN_bn2binpad(s, sig + half, (int)half) == (int)half)
		out = 2 * half;
	c->ECDSA_SIG_free(es);
	return out;
}

char *oauth_jwt_sign(const char *claims, const char *pem, const char *alg, struct err *err)
{
	const struct crypto_lib *c = crypto_lib_load(err);
	const EVP_MD *(*md)(void);
	const struct jwt_alg *a = NULL;
	char header[64], *h64 = NULL, *c64 = NULL, *s64 = NULL, *input = NULL, *out = NULL;
	unsigned char *sig = NULL;
	EVP_MD_CTX *ctx = NULL;
	EVP_PKEY_CTX *pctx;
	EVP_PKEY *key = NULL;
	size_t i, siglen = 0;
	BIO *bio;

	if (!c)
		return NULL;
	for (i = 0; i < sizeof(jwt_algs) / sizeof(jwt_algs[0]); i++)
		if (!strcmp(jwt_algs[i].name, alg))
			a = &jwt_algs[i];
	if (!a) {
		err_set(err, EXIT_USAGE,
			"signing algorithm '%.40s' is not one of ES256, ES384, "
			"RS256, RS384, RS512, PS256",
			alg);
		return NULL;
	}
	memcpy(&md, (const char *)c + a->md, sizeof(md));
	bio = c->BIO_new_mem_buf(pem, -1);
	key = bio ? c->PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
	c->BIO_free(bio);
	if (!key || c->EVP_PKEY_get_base_id(key) != a->key_type) {
		err_set(err, EXIT_USAGE, "the private key is not a PEM %s key for %s",
			a->key_type == EVP_PKEY_EC ? "EC" : "RSA", alg);
		goto out;
	}
	snprintf(header, sizeof(header), "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
	h64 = oauth_b64url(header, strlen(header));
	c64 = oauth_b64url(claims, strlen(claims));
	if (!h64 || !c64 || asprintf(&input, "%s.%s", h64, c64) < 0) {
		input = NULL;
		goto out_oom;
	}
	ctx = c->EVP_MD_CTX_new();
	if (!ctx || c->EVP_DigestSignInit(ctx, &pctx, md(), NULL, key) != 1 ||
	    (a->pss && c->EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1) ||
	    c->EVP_DigestSign(ctx, NULL, &siglen, (unsigned char *)input, strlen(input)) != 1 ||
	    !(sig = malloc(siglen)) ||
	    c->EVP_DigestSign(ctx, sig, &siglen, (unsigned char *)input, strlen(input)) != 1) {
		err_set(err, EXIT_USAGE, "signing a %s client assertion failed", alg);
		goto out;
	}
	if (a->ec_half && !(siglen = ecdsa_der_to_jose(c, sig, siglen, a->ec_half))) {
		err_set(err, EXIT_USAGE, "signing a %s client assertion failed", alg);
		goto out;
	}
	s64 = oauth_b64url(sig, siglen);
	if (!s64 || asprintf(&out, "%s.%s", input, s64) < 0) {
		out = NULL;
		goto out_oom;
	}
	goto out;
out_oom:
	err_set(err, EXIT_FAILED, "out of memory");
out:
	if (ctx)
		c->EVP_MD_CTX_free(ctx);
	if (key)
		c->EVP_PKEY_free(key);
	free(sig);
	free(h64);
	free(c64);
	free(s64);
	free(input);
	return out;
}
