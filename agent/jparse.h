/*
 * jparse.h: a small, defensive JSON parser for the requests the agent reads.
 *
 * Requests come from the controller, one JSON object per line.  The parser
 * takes a whole line, caps nesting at JPARSE_MAX_DEPTH, and builds a tree
 * the caller frees with jv_free().  Strings are decoded to UTF-8 with their
 * length kept (they may contain NUL bytes, which callers reject).
 */
#ifndef FLEETMARK_JPARSE_H
#define FLEETMARK_JPARSE_H

#include <stddef.h>

#define JPARSE_MAX_DEPTH	8
#define JPARSE_MAX_MEMBERS	256

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type	 type;
	double		 num;		/* JV_NUM, JV_BOOL */
	char		*str;		/* JV_STR, NUL-terminated */
	size_t		 len;		/* JV_STR length; members of JV_ARR/JV_OBJ */
	char		**keys;		/* JV_OBJ member names */
	struct jv	**vals;		/* JV_ARR elements, JV_OBJ member values */
};

/*
 * Parse text[0..len) as one JSON value followed only by white space.
 * On success store the tree in *out and return 0; on failure return -1
 * with a message naming the byte offset in err.
 */
int		 jv_parse(const char *text, size_t len, struct jv **out,
		    char *err, size_t errlen);

/* Member `key` of an object, or NULL (also when v is not an object). */
const struct jv	*jv_get(const struct jv *v, const char *key);

/* The string of member `key`, or NULL when absent or not a string. */
const char	*jv_get_str(const struct jv *v, const char *key);

void		 jv_free(struct jv *v);

#endif /* FLEETMARK_JPARSE_H */
