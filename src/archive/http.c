/*
 * http.c: libcurl requests with retries and bounded responses, for the
 * HTTP archive backends (http.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "http.h"
#include "log.h"
#include "pctenc.h"
#include "strbuf.h"
#include "xmalloc.h"

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

/* Replace every occurrence of secret in *msg with "***". */
static void
scrub_one(char **msg, const char *secret)
{
	char *p, *out;
	size_t sl;

	if (msg == NULL || *msg == NULL || secret == NULL || (sl = strlen(secret)) < 1)
		return;
	while ((p = strstr(*msg, secret)) != NULL) {
		out = xasprintf("%.*s***%s", (int)(p - *msg), *msg, p + sl);
		free(*msg);
		*msg = out;
	}
}

/* s in base64 (RFC 4648, padded), as a Basic credential is sent.  A new string. */
static char *
base64(const char *s)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *in = (const unsigned char *)s;
	size_t n = strlen(s), i;
	char *out = xmalloc((n + 2) / 3 * 4 + 1), *o = out;
	unsigned long v;

	for (i = 0; i < n; i += 3) {
		v = (unsigned long)in[i] << 16;
		if (i + 1 < n)
			v |= (unsigned long)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		*o++ = tab[(v >> 18) & 63];
		*o++ = tab[(v >> 12) & 63];
		*o++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

/* Any "Basic " and base64 (a credential we may not know: ~/.netrc's). */
static void
scrub_basic(char **msg)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
	char *p, *from, *out;
	size_t n;

	if (msg == NULL || *msg == NULL)
		return;
	for (from = *msg; (p = strstr(from, "Basic ")) != NULL; ) {
		n = strspn(p + 6, b64);
		/* base64: whole quads, '=' only as padding (not realm="...") */
		if (n < 4 || n % 4 != 0 || memchr(p + 6, '=', n - 2) != NULL) {
			from = p + 6;
			continue;
		}
		out = xasprintf("%.*sBasic ***%s", (int)(p - *msg), *msg, p + 6 + n);
		from = out + (p - *msg) + 9;
		free(*msg);
		*msg = out;
	}
}

void
http_scrub(char **msg, const char *user, const char *password, const char *const *secrets)
{
	char *up, *b;

	if (password != NULL && *password != '\0') {
		up = xasprintf("%s:%s", user != NULL ? user : "", password);
		b = base64(up);
		scrub_one(msg, b);
		free_secret(b);
		free_secret(up);
		scrub_one(msg, password);
	}
	for (; secrets != NULL && *secrets != NULL; secrets++)
		scrub_one(msg, *secrets);
	scrub_basic(msg);
}

/*
 * ~/.netrc, when it may be used: it holds passwords, so, as the config
 * file, not when group or others may read or write it, or someone else
 * owns it (a warning, once, and the file is ignored).  NULL when there is
 * none to use; the path is handed to libcurl, so it reads the file
 * checked.  Called under handle_lock.
 */
static const char *
netrc_path(void)
{
	static int checked;
	static char *path;
	const char *home = getenv("HOME");
	struct stat st;
	char *p;

	if (checked)
		return path;
	checked = 1;
	if (home == NULL || *home != '/')
		return NULL;
	p = xasprintf("%s/.netrc", home);
	if (stat(p, &st) != 0) {
		free(p);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077) != 0 ||
	    (st.st_uid != getuid() && st.st_uid != 0)) {
		log_warn("%s: %s: ignored (it holds passwords: chmod 600 %s)", p,
		    !S_ISREG(st.st_mode) ? "not a regular file" : (st.st_mode & 077) != 0 ?
		    "readable or writable by group or others" : "owned by someone else", p);
		free(p);
		return NULL;
	}
	path = p;
	return path;
}

static void
global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

void
http_retry_default(struct http_retry *r)
{
	r->tries = 5;
	r->first_delay_ms = 500;
	r->max_delay_ms = 8000;
	r->max_total_ms = 120000;
	r->connect_timeout_s = 10;
	r->stall_s = 30;
	r->min_rate = HTTP_MIN_RATE;
}

/*
 * One try's deadline, whatever the server does: max_total_ms plus the
 * time the bytes take at min_rate.  The stall rule alone lets a server
 * that drips a byte a second keep a transfer going for ever.
 */
static long
try_deadline_ms(const struct http_retry *rt, uint64_t bytes)
{
	uint64_t rate = rt->min_rate > 0 ? rt->min_rate : HTTP_MIN_RATE;
	long long ms = rt->max_total_ms + (long long)(bytes / rate) * 1000 +
	    (long long)(bytes % rate * 1000 / rate);

	return ms > LONG_MAX ? LONG_MAX : (long)ms;
}

int
http_status_class(long status)
{
	if (status >= 200 && status < 300)
		return ARCHIVE_OK;
	if (status == 404 || status == 410)
		return ARCHIVE_ENOTFOUND;
	if (status >= 500 || status == 408 || status == 429)
		return ARCHIVE_ETRANSIENT;
	return ARCHIVE_EPERM;
}

/* Failures of the transport itself that a later try may not see. */
static int
curl_class(CURLcode c)
{
	switch (c) {
	case CURLE_OK:
		return ARCHIVE_OK;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return ARCHIVE_ETRANSIENT;
	default:
		return ARCHIVE_EPERM;
	}
}

char *
http_escape_path(const char *key)
{
	return pct_encode(key, strlen(key), PCT_UNRESERVED "/");
}

/* The state of one try. */
struct attempt {
	const struct http_request *req;
	CURL		*h;
	FILE		*in;		/* upload file */
	size_t		 body_off;	/* upload from memory */
	int		 out_fd;	/* download file, -1 until opened */
	int		 to_file;	/* decided at the first body byte */
	uint64_t	 got;
	uint64_t	 max;
	int		 toobig;
	int		 write_err;
	struct strbuf	 body;		/* in memory: the body or an error document */
};

static size_t
read_cb(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct attempt *a = arg;
	size_t want = size * nmemb, left;

	if (a->in != NULL)
		return fread(ptr, 1, want, a->in);
	left = a->req->body_len - a->body_off;
	if (want > left)
		want = left;
	memcpy(ptr, (const char *)a->req->body + a->body_off, want);
	a->body_off += want;
	return want;
}

static int
seek_cb(void *arg, curl_off_t off, int origin)
{
	struct attempt *a = arg;

	if (origin != SEEK_SET || off < 0)
		return CURL_SEEKFUNC_CANTSEEK;
	if (a->in != NULL)
		return fseeko(a->in, (off_t)off, SEEK_SET) == 0 ?
		    CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL;
	if ((size_t)off > a->req->body_len)
		return CURL_SEEKFUNC_FAIL;
	a->body_off = (size_t)off;
	return CURL_SEEKFUNC_OK;
}

static size_t
write_cb(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct attempt *a = arg;
	size_t n = size * nmemb, off;
	long status = 0;
	ssize_t w;

	if (a->got == 0 && a->out_fd == -1 && !a->to_file &&
	    a->req->download_path != NULL) {
		curl_easy_getinfo(a->h, CURLINFO_RESPONSE_CODE, &status);
		if (status >= 200 && status < 300) {
			a->out_fd = open(a->req->download_path,
			    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (a->out_fd == -1) {
				a->write_err = errno;
				return 0;
			}
			a->to_file = 1;
		}
	}
	if (a->got + n > a->max) {
		a->toobig = 1;
		return 0;
	}
	a->got += n;
	if (a->to_file) {
		for (off = 0; off < n; off += (size_t)w) {
			if ((w = write(a->out_fd, ptr + off, n - off)) < 0) {
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				a->write_err = errno;
				return 0;
			}
		}
		return n;
	}
	/* error documents and in-memory bodies: keep the start only */
	if (a->req->download_path != NULL && a->body.len >= 64 * 1024)
		return n;
	strbuf_add(&a->body, ptr, n);
	return n;
}

/* Progress, and the way out for archive_cancel(): nonzero aborts. */
static int
xferinfo_cb(void *arg, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	const struct archive_progress *p = arg;

	(void)dltotal;
	(void)ultotal;
	if (archive_cancelled())
		return 1;
	if (p != NULL && p->cb != NULL)
		p->cb(p->arg, (uint64_t)(dlnow > ulnow ? dlnow : ulnow));
	return 0;
}

/*
 * What an error document says, printable and short, or NULL: an HTML
 * page's title, else its first line.
 */
static char *
doc_excerpt(const char *body, size_t len)
{
	const char *t, *te;
	char *s;
	size_t i, n = 0;

	if (body == NULL || len == 0)
		return NULL;
	if ((t = strstr(body, "<title>")) != NULL &&
	    (te = strstr(t, "</title>")) != NULL && te - t < 128) {
		body = t + 7;
		len = (size_t)(te - body);
	}
	s = xmalloc(121);
	for (i = 0; i < len && n < 120; i++) {
		if (body[i] == '\n' && n > 0)
			break;
		if (body[i] == '\r' || body[i] == '\n')
			continue;
		s[n++] = (body[i] >= 0x20 && body[i] < 0x7f) ? body[i] : '?';
	}
	s[n] = '\0';
	if (n == 0) {
		free(s);
		return NULL;
	}
	return s;
}

static const char *
status_hint(long status)
{
	switch (status) {
	case 401:
		return " (authentication failed: check the user and password)";
	case 403:
		return " (access denied)";
	case 405:
		return " (method not allowed: is it a WebDAV server?)";
	case 409:
		return " (conflict: a parent collection is missing)";
	case 413:
		return " (too large for the server)";
	case 507:
		return " (the server is out of space)";
	default:
		return "";
	}
}

/* One try; returns an archive code and sets *msg on failure. */
static int
attempt_one(CURL *h, const struct http_request *req,
    const struct http_retry *rt, struct http_response *resp, char **msg)
{
	struct attempt a;
	struct curl_slist *hdrs = NULL;
	char errbuf[CURL_ERROR_SIZE];
	const char *disp = req->display != NULL ? req->display : req->url;
	const char *const *hp;
	char *excerpt;
	struct stat st;
	CURLcode c;
	long status = 0;
	int r;

	memset(&a, 0, sizeof(a));
	strbuf_init(&a.body, 0);
	a.req = req;
	a.h = h;
	a.out_fd = -1;
	a.max = req->max_response != 0 ? req->max_response : HTTP_MAX_BODY;
	errbuf[0] = '\0';

	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, req->url);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, rt->connect_timeout_s);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, rt->stall_s);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "fleetmark");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
	if (req->user != NULL) {
		curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(h, CURLOPT_USERNAME, req->user);
		curl_easy_setopt(h, CURLOPT_PASSWORD,
		    req->password != NULL ? req->password : "");
	} else if (req->netrc && netrc_path() != NULL) {
		curl_easy_setopt(h, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
		curl_easy_setopt(h, CURLOPT_NETRC_FILE, netrc_path());
	}

	if (req->upload_path != NULL) {
		if ((a.in = fopen(req->upload_path, "rbe")) == NULL ||
		    fstat(fileno(a.in), &st) != 0) {
			*msg = xasprintf("%s: %s", req->upload_path, strerror(errno));
			r = ARCHIVE_EPERM;
			goto out;
		}
		curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)st.st_size);
	} else if (req->body != NULL) {
		curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->body_len);
	}
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, try_deadline_ms(rt,
	    req->upload_path != NULL ? (uint64_t)st.st_size :
	    req->body != NULL ? (uint64_t)req->body_len : a.max));
	if (req->upload_path != NULL || req->body != NULL) {
		curl_easy_setopt(h, CURLOPT_READFUNCTION, read_cb);
		curl_easy_setopt(h, CURLOPT_READDATA, &a);
		curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, seek_cb);
		curl_easy_setopt(h, CURLOPT_SEEKDATA, &a);
	}
	if (strcmp(req->method, "HEAD") == 0)
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	else if (strcmp(req->method, "GET") != 0 &&
	    !(strcmp(req->method, "PUT") == 0 && (req->upload_path || req->body)))
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);

	for (hp = req->headers; hp != NULL && *hp != NULL; hp++)
		hdrs = curl_slist_append(hdrs, *hp);
	if (req->prepare != NULL && req->prepare(req->prepare_arg, req, &hdrs, msg) != 0) {
		r = ARCHIVE_EPERM;
		goto out;
	}
	if (hdrs != NULL)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, xferinfo_cb);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, (void *)req->progress);

	c = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	resp->status = status;
	if (a.out_fd != -1 && close(a.out_fd) != 0 && a.write_err == 0)
		a.write_err = errno;
	a.out_fd = -1;

	if (a.toobig) {
		*msg = xasprintf("%s %s: the response is larger than %llu bytes",
		    req->method, disp, (unsigned long long)a.max);
		r = ARCHIVE_ECORRUPT;
	} else if (a.write_err != 0) {
		*msg = xasprintf("%s: %s", req->download_path, strerror(a.write_err));
		r = ARCHIVE_EPERM;
	} else if (c == CURLE_ABORTED_BY_CALLBACK && archive_cancelled()) {
		*msg = xasprintf("%s %s: interrupted", req->method, disp);
		r = ARCHIVE_ECANCELED;
	} else if (c != CURLE_OK) {
		*msg = xasprintf("%s %s: %s", req->method, disp,
		    errbuf[0] != '\0' ? errbuf : curl_easy_strerror(c));
		r = curl_class(c);
	} else if ((r = http_status_class(status)) != ARCHIVE_OK) {
		excerpt = doc_excerpt(a.body.buf, a.body.len);
		*msg = xasprintf("%s %s: HTTP %ld%s%s%s", req->method, disp,
		    status, status_hint(status), excerpt ? ": " : "",
		    excerpt ? excerpt : "");
		free(excerpt);
	} else if (req->download_path != NULL && !a.to_file) {
		/* an empty body never reached write_cb: an empty file */
		if ((a.out_fd = open(req->download_path,
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1) {
			*msg = xasprintf("%s: %s", req->download_path, strerror(errno));
			r = ARCHIVE_EPERM;
		}
	}
 out:
	if (a.out_fd != -1)
		close(a.out_fd);
	if (a.in != NULL)
		fclose(a.in);
	curl_slist_free_all(hdrs);
	free(resp->body);
	resp->body = NULL;
	resp->len = 0;
	if (a.body.len > 0)
		resp->body = strbuf_detach(&a.body, &resp->len);
	strbuf_release(&a.body);
	return r;
}

/* One handle, kept between requests so connections are reused. */
static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static CURL *handle;

int
http_do(const struct http_request *req, struct http_response *resp, char **err)
{
	struct http_retry dflt;
	const struct http_retry *rt = req->retry;
	char *msg = NULL;
	long long start, delay, wait;
	unsigned int seed;
	int r, k;

	memset(resp, 0, sizeof(*resp));
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK)
		return err_set(err, ARCHIVE_EPERM, "libcurl: %s", curl_easy_strerror(global_rc));
	if (rt == NULL) {
		http_retry_default(&dflt);
		rt = &dflt;
	}
	pthread_mutex_lock(&handle_lock);
	if (handle == NULL && (handle = curl_easy_init()) == NULL) {
		pthread_mutex_unlock(&handle_lock);
		*err = xstrdup("libcurl: cannot create a handle");
		return ARCHIVE_EPERM;
	}
	seed = (unsigned int)(clock_mono_ms() ^ getpid());
	start = clock_mono_ms();
	delay = rt->first_delay_ms;
	for (k = 1;; k++) {
		free(msg);
		msg = NULL;
		resp->tries = k;
		r = attempt_one(handle, req, rt, resp, &msg);
		/* before it is logged below: a server may quote our headers */
		http_scrub(&msg, req->user, req->password, req->secrets);
		if (r != ARCHIVE_ETRANSIENT || k >= rt->tries || archive_cancelled())
			break;
		wait = delay + (delay > 0 ? rand_r(&seed) % (delay / 4 + 1) : 0);
		if (clock_mono_ms() - start + wait > rt->max_total_ms)
			break;
		log_info("%s; try %d of %d in %.1f s", msg, k + 1, rt->tries,
		    (double)wait / 1000);
		if (req->progress != NULL && req->progress->cb != NULL)
			req->progress->cb(req->progress->arg, 0);
		/* in slices, so that archive_cancel() is heard */
		for (; wait > 0 && !archive_cancelled(); wait -= 100)
			clock_sleep_ms(wait < 100 ? (long)wait : 100);
		delay = delay * 2 > rt->max_delay_ms ? rt->max_delay_ms : delay * 2;
	}
	pthread_mutex_unlock(&handle_lock);
	if (r != ARCHIVE_OK) {
		if (r == ARCHIVE_ETRANSIENT && k > 1)
			*err = xasprintf("%s (gave up after %d tries)", msg, k);
		else
			*err = msg;
		if (*err != msg)
			free(msg);
		return r;
	}
	free(msg);
	return ARCHIVE_OK;
}

void
http_response_release(struct http_response *resp)
{
	if (resp == NULL)
		return;
	free(resp->body);
	resp->body = NULL;
	resp->len = 0;
}
