/*
 * digest.c: SHA-256 and MD5 as lowercase hex, via libcrypto EVP (digest.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "digest.h"
#include "xmalloc.h"

void
digest_tohex(const void *bytes, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = bytes;
	size_t i;

	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[b[i] >> 4];
		hex[2 * i + 1] = digits[b[i] & 15];
	}
	hex[2 * n] = '\0';
}

void
digest_sha256(const void *data, size_t len, unsigned char md[DIGEST_SHA256_LEN])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (EVP_Digest(data, len, d, &n, EVP_sha256(), NULL) != 1 ||
	    n != DIGEST_SHA256_LEN)
		memset(d, 0, DIGEST_SHA256_LEN);	/* not seen: sha256 is always there */
	memcpy(md, d, DIGEST_SHA256_LEN);
}

void
digest_sha256_hex(const void *data, size_t len, char hex[DIGEST_SHA256_HEX])
{
	unsigned char md[DIGEST_SHA256_LEN];

	digest_sha256(data, len, md);
	digest_tohex(md, sizeof(md), hex);
}

void
digest_md5_hex(const void *data, size_t len, char hex[DIGEST_MD5_HEX])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (EVP_Digest(data, len, d, &n, EVP_md5(), NULL) != 1 || n > 16)
		n = 0;
	digest_tohex(d, n, hex);
}

int
digest_sha256_file(const char *path, int flags, char hex[DIGEST_SHA256_HEX],
    uint64_t *size, char **err)
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = NULL;
	uint64_t total = 0;
	ssize_t n;
	int fd, r = -1, e = EIO;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC |
	    ((flags & DIGEST_NOFOLLOW) ? O_NOFOLLOW : 0))) < 0) {
		e = errno;
		*err = xasprintf("%s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		*err = xasprintf("%s: sha256 unavailable in libcrypto", path);
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			*err = xasprintf("%s: %s", path, strerror(e));
			goto out;
		}
		if (EVP_DigestUpdate(ctx, buf, (size_t)n) != 1) {
			*err = xasprintf("%s: sha256 failed", path);
			goto out;
		}
		total += (uint64_t)n;
	}
	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != DIGEST_SHA256_LEN) {
		*err = xasprintf("%s: sha256 failed", path);
		goto out;
	}
	digest_tohex(md, mdlen, hex);
	if (size != NULL)
		*size = total;
	r = 0;
 out:
	EVP_MD_CTX_free(ctx);
	close(fd);
	if (r != 0)
		errno = e;
	return r;
}
