#include "crypto_lib.h"

#include <pthread.h>
#include <stddef.h>

#include "../common/dlib.h"

/* Written once under load_once, read-only afterwards. */
static struct crypto_lib table;
static char load_error[ERR_TEXT_MAX];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static const struct dlib_symbol symbols[] = {
#define SYM(field)                                                                                 \
	{                                                                                          \
#field, offsetof(struct crypto_lib, field)                                         \
	}
    SYM(EVP_EncodeBlock),
    SYM(EVP_DecodeBlock),
    SYM(RAND_bytes),
    SYM(EVP_Digest),
    SYM(EVP_sha256),
    SYM(EVP_sha384),
    SYM(EVP_sha512),
    SYM(BIO_new_mem_buf),
    SYM(BIO_free),
    SYM(PEM_read_bio_PrivateKey),
    SYM(EVP_PKEY_get_base_id),
    SYM(EVP_PKEY_free),
    SYM(EVP_MD_CTX_new),
    SYM(EVP_MD_CTX_free),
    SYM(EVP_DigestSignInit),
    SYM(EVP_DigestSign),
    SYM(EVP_PKEY_CTX_set_rsa_padding),
    SYM(d2i_ECDSA_SIG),
    SYM(ECDSA_SIG_get0),
    SYM(ECDSA_SIG_free),
    SYM(BN_bn2binpad),
#undef SYM
};

static void load(void)
{
	struct crypto_lib t;

	if (dlib_load("libcrypto.so.3", NULL, symbols, sizeof(symbols) / sizeof(symbols[0]), &t,
		      load_error, sizeof(load_error)) < 0)
		return;
	table = t;
}

const struct crypto_lib *crypto_lib_load(struct err *err)
{
	pthread_once(&load_once, load);
	if (load_error[0]) {
		err_set(err, EXIT_FAILED, "%s", load_error);
		return NULL;
	}
	return &table;
}
