/* OpenSSL's libcrypto, loaded with dlopen on first use, as libcurl is
 * (curl_lib.h): linked, it cost every mcpfs start 1.5-3 ms here (measured
 * with LD_PRELOAD on a loaded host: 4.3-5.7 ms without it, 5.8-10.3 ms
 * with), and only OAuth and serve (tokens, file contents) need it. */
#ifndef MCPFS_SERVERS_CRYPTO_LIB_H
#define MCPFS_SERVERS_CRYPTO_LIB_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#include "../common/err.h"

struct crypto_lib {
	int (*EVP_EncodeBlock)(unsigned char *t, const unsigned char *f, int n);
	int (*EVP_DecodeBlock)(unsigned char *t, const unsigned char *f, int n);
	int (*RAND_bytes)(unsigned char *buf, int num);
	int (*EVP_Digest)(const void *data, size_t count, unsigned char *md, unsigned int *size,
			  const EVP_MD *type, ENGINE *impl);
	const EVP_MD *(*EVP_sha256)(void);
	const EVP_MD *(*EVP_sha384)(void);
	const EVP_MD *(*EVP_sha512)(void);
	BIO *(*BIO_new_mem_buf)(const void *buf, int len);
	int (*BIO_free)(BIO *a);
	EVP_PKEY *(*PEM_read_bio_PrivateKey)(BIO *bp, EVP_PKEY **x, pem_password_cb *cb, void *u);
	int (*EVP_PKEY_get_base_id)(const EVP_PKEY *pkey);
	void (*EVP_PKEY_free)(EVP_PKEY *pkey);
	EVP_MD_CTX *(*EVP_MD_CTX_new)(void);
	void (*EVP_MD_CTX_free)(EVP_MD_CTX *ctx);
	int (*EVP_DigestSignInit)(EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type,
				  ENGINE *e, EVP_PKEY *pkey);
	int (*EVP_DigestSign)(EVP_MD_CTX *ctx, unsigned char *sigret, size_t *siglen,
			      const unsigned char *tbs, size_t tbslen);
	int (*EVP_PKEY_CTX_set_rsa_padding)(EVP_PKEY_CTX *ctx, int pad_mode);
	ECDSA_SIG *(*d2i_ECDSA_SIG)(ECDSA_SIG **sig, const unsigned char **pp, long len);
	void (*ECDSA_SIG_get0)(const ECDSA_SIG *sig, const BIGNUM **pr, const BIGNUM **ps);
	void (*ECDSA_SIG_free)(ECDSA_SIG *sig);
	int (*BN_bn2binpad)(const BIGNUM *a, unsigned char *to, int tolen);
};

/* Load libcrypto.so.3, once per process (thread-safe). Returns the table
 * (borrowed, valid for the process's life), or NULL with @err. */
const struct crypto_lib *crypto_lib_load(struct err *err);

#endif
