/*
 * yamldoc.h: YAML documents as position-carrying node trees, and the typed,
 * strict accessors the plan and fleet loaders are built on.
 *
 * A file is parsed with libyaml into a tree of scalars, sequences and
 * mappings.  Every node remembers the file name, line and column (1-based)
 * where it starts, so that every error can be reported as
 *
 *	FILE:LINE:COL: message
 *
 * The parser accepts one document of plain YAML data and refuses what a
 * configuration file has no use for and what makes files hard to review:
 * anchors and aliases, explicit tags, more than one document, duplicate
 * mapping keys, non-scalar keys, NUL characters in strings, nesting deeper
 * than YDOC_MAX_DEPTH, files over YDOC_MAX_BYTES and more than
 * YDOC_MAX_NODES nodes.
 *
 * Errors: functions that can fail return 0 on success and -1 on failure,
 * storing a newly allocated message ("FILE:LINE:COL: message") in *err,
 * which the caller frees.  On failure no output parameter is changed.
 */
#ifndef FLEETMARK_YAMLDOC_H
#define FLEETMARK_YAMLDOC_H

#include <stddef.h>

#define YDOC_MAX_BYTES	(1024 * 1024)	/* largest file accepted */
#define YDOC_MAX_DEPTH	32		/* deepest nesting of collections */
#define YDOC_MAX_NODES	100000		/* most nodes in a document */

enum ydoc_type {
	YDOC_SCALAR,
	YDOC_SEQUENCE,
	YDOC_MAPPING,
};

struct ydoc_node {
	enum ydoc_type		 type;
	const char		*file;		/* owned by the document */
	int			 line;		/* 1-based */
	int			 col;		/* 1-based, in characters */

	/* YDOC_SCALAR: the text, NUL-terminated (no NUL inside). */
	char			*value;
	int			 quoted;	/* written in quotes or as a block */

	/*
	 * YDOC_SEQUENCE: items[0..n-1].  YDOC_MAPPING: keys[i] (scalars,
	 * unique) and items[i] its value, in the order written.
	 */
	size_t			 n;
	struct ydoc_node	**items;
	struct ydoc_node	**keys;
};

struct ydoc;

/*
 * Parse the file at `path` (named `path` in messages).  An empty file, or
 * one with only comments, is an error.  *docp is freed with ydoc_free().
 */
int	ydoc_load(const char *path, struct ydoc **docp, char **err);

/* Parse `len` bytes of `text`, named `name` in messages. */
int	ydoc_parse(const char *name, const char *text, size_t len,
	    struct ydoc **docp, char **err);

/* The root node of a document (never NULL) and the document's file name. */
const struct ydoc_node *ydoc_root(const struct ydoc *doc);
const char	*ydoc_file(const struct ydoc *doc);

void	ydoc_free(struct ydoc *doc);

/*
 * Format an error at n's position: returns -1 after storing
 * "FILE:LINE:COL: message" in *err (a new string).  With n NULL the
 * message has no position.
 */
int	ydoc_error(char **err, const struct ydoc_node *n, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* "a scalar", "a list", "a mapping": for messages. */
const char	*ydoc_type_name(const struct ydoc_node *n);

/* Whether n is a plain null: an empty plain scalar, "~" or "null". */
int	ydoc_is_null(const struct ydoc_node *n);

/* --- Typed getters: each checks n's type and syntax, errors at n -------- */

/* A non-null scalar (quoted "" is fine: an empty string). */
int	ydoc_string(const struct ydoc_node *n, const char **out, char **err);

/* A decimal integer in [min, max], optionally with a leading '-'. */
int	ydoc_int(const struct ydoc_node *n, long long min, long long max,
	    long long *out, char **err);

/* yes/no/true/false, in any case: *out is 1 or 0. */
int	ydoc_bool(const struct ydoc_node *n, int *out, char **err);

/*
 * A duration: a number (integer or decimal) followed by ms, s, m or h, or a
 * plain number of seconds ("90s", "5m", "1h", "500ms", "30", "1.5s").
 * *out_ms is the value in milliseconds, rounded, and must be in
 * [min_ms, max_ms].
 */
int	ydoc_duration(const struct ydoc_node *n, long long min_ms,
	    long long max_ms, long long *out_ms, char **err);

/* A percentage "N%" (N an integer or decimal, 0 to max): *out is N. */
int	ydoc_percent(const struct ydoc_node *n, double max, double *out, char **err);

/*
 * A list of scalars written either as a sequence or, for one element, as a
 * single scalar ("hosts: p690" is "hosts: [p690]").  *count is the number
 * of elements (an empty sequence gives 0); elements that are not scalars,
 * and nulls, are errors.  Get the elements with ydoc_list_at().
 */
int	ydoc_scalar_list(const struct ydoc_node *n, size_t *count, char **err);

/* Element i of such a list: for a scalar, n itself. */
const struct ydoc_node *ydoc_list_at(const struct ydoc_node *n, size_t i);

/* The parsing helpers above, on plain strings (no position): 0 or -1. */
int	ydoc_parse_duration(const char *s, long long *out_ms);
int	ydoc_parse_percent(const char *s, double *out);
int	ydoc_parse_int(const char *s, long long *out);

/*
 * Whether s is a name as plans, inventories and programs spell them (a
 * host, a label, a variant, a program): 1 to max bytes of letters, digits,
 * '-', '_' and '.', starting with a letter or digit.
 */
int	ydoc_name_ok(const char *s, size_t max);

/* --- Strict mappings ------------------------------------------------------ */

/*
 * Check that n is a mapping (`what` names it in messages, e.g. "plan",
 * "host 'p690'") whose keys are all in the NULL-terminated `known`.  An
 * unknown key is reported at the key:
 *	FILE:L:C: unknown key 'hots' in plan (did you mean 'hosts'?)
 */
int	ydoc_check_keys(const struct ydoc_node *n, const char *what,
	    const char *const *known, char **err);

/* The value of `key` in mapping n, or NULL when absent (or n not a map). */
const struct ydoc_node *ydoc_get(const struct ydoc_node *n, const char *key);

/* The key node of `key` in mapping n, or NULL. */
const struct ydoc_node *ydoc_get_key(const struct ydoc_node *n, const char *key);

/* --- Suggestions ---------------------------------------------------------- */

/*
 * Levenshtein distance between a and b (insertions, deletions and
 * substitutions each cost 1), computed on bytes.
 */
int	ydoc_edit_distance(const char *a, const char *b);

/*
 * The candidate nearest to `word` if it is within YDOC_SUGGEST_MAX edits
 * (and fewer edits than word has characters, so "x" suggests nothing);
 * ties go to the first.  Failing that, the one candidate that `word` (at
 * least 2 characters) abbreviates.  `cands` has n entries; NULL when none
 * is close.
 */
#define YDOC_SUGGEST_MAX	2
const char	*ydoc_suggest(const char *word, const char *const *cands, size_t n);

/*
 * " (did you mean 'X'?)" for the suggestion above, or "" when there is
 * none; always a newly allocated string.
 */
char	*ydoc_did_you_mean(const char *word, const char *const *cands, size_t n);

#endif /* FLEETMARK_YAMLDOC_H */
