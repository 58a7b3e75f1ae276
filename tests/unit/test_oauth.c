/* The pure parts of OAuth (servers/oauth_*.c): WWW-Authenticate challenges,
 * which URLs may be sent secrets, scope sets, base64url and PKCE S256 (the
 * expected values computed with Python's hashlib), and JWT signatures,
 * verified with OpenSSL against the public half of a fresh key. */
#define _GNU_SOURCE
#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdlib.h>
#include <string.h>

#include "../../servers/oauth_challenge.h"
#include "../../servers/oauth_crypto.h"
#include "../../servers/oauth_discover.h"
#include "../../servers/oauth_http.h"
#include "check.h"

static const struct {
	const char *header;
	bool bearer;
	const char *resource_metadata, *scope, *error;
} challenges[] = {
    {"Bearer resource_metadata=\"https://a.test/.well-known/oauth-protected-resource/mcp\"", true,
     "https://a.test/.well-known/oauth-protected-resource/mcp", NULL, NULL},
    {"Bearer scope=\"mcp:basic mcp:write\", resource_metadata=\"http://127.0.0.1:9/p\", "
     "error=\"insufficient_scope\"",
     true, "http://127.0.0.1:9/p", "mcp:basic mcp:write", "insufficient_scope"},
    {"bearer error=invalid_token,scope=x", true, NULL, "x", "invalid_token"},
    {"Basic realm=\"r\", Bearer scope=\"s\"", true, NULL, "s", NULL},
    {"Basic realm=\"x\", scope=\"not ours\"", false, NULL, NULL, NULL},
    {"Bearer realm=\"a \\\"quoted\\\" realm\", scope=\"q\"", true, NULL, "q", NULL},
    {"Bearer", true, NULL, NULL, NULL},
    {"", false, NULL, NULL, NULL},
    {"=garbage \"", false, NULL, NULL, NULL},
    {"Bearer scope=\"unterminated", true, NULL, "unterminated", NULL},
};

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void test_challenges(void)
{
	struct oauth_challenge c;
	size_t i;

	for (i = 0; i < sizeof(challenges) / sizeof(challenges[0]); i++) {
		CHECK(oauth_challenge_parse(challenges[i].header, &c) == 0, "parse %zu", i);
		CHECK(c.bearer == challenges[i].bearer, "%zu bearer", i);
		CHECK(same(c.resource_metadata, challenges[i].resource_metadata),
		      "%zu resource_metadata %s", i, c.resource_metadata);
		CHECK(same(c.scope, challenges[i].scope), "%zu scope %s", i, c.scope);
		CHECK(same(c.error, challenges[i].error), "%zu error %s", i, c.error);
		oauth_challenge_free(&c);
	}
	CHECK(oauth_challenge_parse(NULL, &c) == 0 && !c.bearer, "NULL header");
}

static void test_urls(void)
{
	static const struct {
		const char *url;
		bool ok;
	} urls[] = {
	    {"https://as.example.test/token", true},
	    {"http://127.0.0.1:8080/token", true},
	    {"http://localhost/token", true},
	    {"http://[::1]:9/t", true},
	    {"http://127.9.9.9/t", true},
	    {"http://example.test/token", false},
	    {"http://127.0.0.1.evil.test/t", false},
	    {"http://127.0.0.1@evil.test/t", false},
	    {"http://evil.test@127.0.0.1/t", false},
	    {"ftp://127.0.0.1/t", false},
	    {"file:///etc/passwd", false},
	    {"javascript:alert(1)", false},
	};
	size_t i;

	for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++)
		CHECK(oauth_http_url_allowed(urls[i].url) == urls[i].ok, "%s", urls[i].url);
}

static void test_scopes(void)
{
	char *s;

	s = oauth_scope_union("mcp:basic", "mcp:basic mcp:write");
	CHECK(s && !strcmp(s, "mcp:basic mcp:write"), "union %s", s);
	free(s);
	s = oauth_scope_union(NULL, "a  b a");
	CHECK(s && !strcmp(s, "a b"), "from nothing %s", s);
	free(s);
	s = oauth_scope_union("ab", "a");
	CHECK(s && !strcmp(s, "ab a"), "a prefix is not a word %s", s);
	free(s);
}

static void test_encoding(void)
{
	char *s, *form = NULL;

	s = oauth_b64url("\xfb\xff\xfe", 3);
	CHECK(s && !strcmp(s, "-__-"), "b64url %s", s);
	free(s);
	s = oauth_pkce_challenge("abc");
	CHECK(s && !strcmp(s, "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0"), "S256 %s", s);
	free(s);
	s = oauth_pkce_challenge("dBjftJeZ4CVP-mJ92h2SC3nR5RLmLxjWadpTE7rBgpGU");
	CHECK(s && !strcmp(s, "Qyssj11hBZVxbjOA7EyO9TDcSq-TGnMv3NkscohCLck"), "S256 %s", s);
	free(s);
	s = oauth_random_text(32);
	CHECK(s && strlen(s) == 43 &&
		  strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789-_") == 43,
	      "random %s", s);
	free(s);
	CHECK(!oauth_form_add(&form, "redirect_uri", "http://127.0.0.1:5/cb?x=1&y") &&
		  !oauth_form_add(&form, "scope", "a b") && !oauth_form_add(&form, "none", NULL),
	      "form");
	CHECK(form && !strcmp(form, "redirect_uri=http%3A%2F%2F127.0.0.1%3A5%2Fcb%3Fx%3D1%26y&"
				    "scope=a+b"),
	      "form %s", form);
	free(form);
}

/* JWS ES256: the signature is r || s (64 bytes) over "header.claims". */
static bool verify_es256(EVP_PKEY *key, const char *jwt)
{
	const char *dot2 = strrchr(jwt, '.');
	unsigned char raw[64], *der = NULL;
	BIGNUM *r = NULL, *s = NULL;
	ECDSA_SIG *sig = ECDSA_SIG_new();
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	char *b64 = NULL;
	size_t n;
	int len, ok = 0;
	BIO *bio, *b64f;

	if (!dot2 || !sig || !ctx)
		goto out;
	/* base64url back to standard base64 with padding, for BIO_f_base64. */
	if (asprintf(&b64, "%s==", dot2 + 1) < 0) {
		b64 = NULL;
		goto out;
	}
	for (n = 0; b64[n]; n++)
		b64[n] = b64[n] == '-' ? '+' : b64[n] == '_' ? '/' : b64[n];
	b64[strlen(dot2 + 1) + (4 - strlen(dot2 + 1) % 4) % 4] = '\0';
	bio = BIO_new_mem_buf(b64, -1);
	b64f = BIO_new(BIO_f_base64());
	BIO_set_flags(b64f, BIO_FLAGS_BASE64_NO_NL);
	bio = BIO_push(b64f, bio);
	len = BIO_read(bio, raw, sizeof(raw));
	BIO_free_all(bio);
	if (len != 64)
		goto out;
	r = BN_bin2bn(raw, 32, NULL);
	s = BN_bin2bn(raw + 32, 32, NULL);
	if (!r || !s || !ECDSA_SIG_set0(sig, r, s))
		goto out;
	r = s = NULL;
	len = i2d_ECDSA_SIG(sig, &der);
	ok = len > 0 && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, key) == 1 &&
	     EVP_DigestVerify(ctx, der, (size_t)len, (const unsigned char *)jwt,
			      (size_t)(dot2 - jwt)) == 1;
out:
	BN_free(r);
	BN_free(s);
	ECDSA_SIG_free(sig);
	EVP_MD_CTX_free(ctx);
	OPENSSL_free(der);
	free(b64);
	return ok;
}

static void test_jwt(void)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	struct err e = {0};
	BIO *bio = BIO_new(BIO_s_mem());
	char *pem = NULL, *jwt;
	long n;

	CHECK(key && bio && PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL),
	      "make a key");
	n = BIO_get_mem_data(bio, &pem);
	pem = strndup(pem, (size_t)n);
	jwt = oauth_jwt_sign("{\"iss\":\"me\"}", pem, "ES256", &e);
	CHECK(jwt && !strncmp(jwt, "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJtZSJ9.", 54),
	      "jwt %s", jwt ? jwt : "(none)");
	CHECK(jwt && verify_es256(key, jwt), "the ES256 signature verifies");
	free(jwt);
	jwt = oauth_jwt_sign("{}", pem, "RS256", &e);
	CHECK(!jwt && e.status == EXIT_USAGE && strstr(e.text, "RSA"), "EC key for RS256: %s",
	      e.text);
	free(jwt);
	err_clear(&e);
	jwt = oauth_jwt_sign("{}", "not a key", "ES256", &e);
	CHECK(!jwt && e.status == EXIT_USAGE, "garbage key: %s", e.text);
	err_clear(&e);
	jwt = oauth_jwt_sign("{}", pem, "none", &e);
	CHECK(!jwt && e.status == EXIT_USAGE, "alg none refused: %s", e.text);
	free(pem);
	BIO_free(bio);
	EVP_PKEY_free(key);
}

int main(void)
{
	test_challenges();
	test_urls();
	test_scopes();
	test_encoding();
	test_jwt();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
