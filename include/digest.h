/*
 * digest.h: SHA-256 (and MD5, for hosts that only have md5sum) of memory
 * and of files, as lowercase hex, through libcrypto's EVP interface.
 *
 * Hex output goes into a caller's array of DIGEST_SHA256_HEX (or
 * DIGEST_MD5_HEX) bytes: the digits and a NUL.  Nothing here allocates
 * but the error messages.
 */
#ifndef FLEETMARK_DIGEST_H
#define FLEETMARK_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_SHA256_LEN	32	/* bytes of a SHA-256 */
#define DIGEST_SHA256_HEX	65	/* 64 hex digits and a NUL */
#define DIGEST_MD5_HEX		33	/* 32 hex digits and a NUL */

#define DIGEST_NOFOLLOW		0x01	/* digest_sha256_file(): refuse a symlink */

/* n bytes as 2n lowercase hex digits and a NUL into hex (2n + 1 bytes). */
void	digest_tohex(const void *bytes, size_t n, char *hex);

/* The SHA-256 of len bytes of data, raw. */
void	digest_sha256(const void *data, size_t len,
	    unsigned char md[DIGEST_SHA256_LEN]);

/* The SHA-256 of len bytes of data, in hex. */
void	digest_sha256_hex(const void *data, size_t len,
	    char hex[DIGEST_SHA256_HEX]);

/*
 * The MD5 of len bytes of data, in hex; "" where libcrypto refuses MD5
 * (a FIPS build).  Only to compare with a remote md5sum, never to trust.
 */
void	digest_md5_hex(const void *data, size_t len, char hex[DIGEST_MD5_HEX]);

/*
 * The SHA-256 of the file at path in hex, and its size in *size (if not
 * NULL), read in 64 KiB blocks.  0, or -1 with errno set (from open or
 * read; EIO when libcrypto fails) and a message in *err ("PATH: REASON").
 */
int	digest_sha256_file(const char *path, int flags,
	    char hex[DIGEST_SHA256_HEX], uint64_t *size, char **err);

#endif /* FLEETMARK_DIGEST_H */
