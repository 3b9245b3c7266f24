/*
 * history-env.c: the env facts (hosts/NAME.json) that changed on a host
 * from one night to its next, for the top of `fleetmark history` (text,
 * Markdown and HTML).  See history.h and docs/environment.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envdiff.h"
#include "history.h"
#include "html.h"
#include "xmalloc.h"

#define SHORT_VALUE	48	/* bytes of a value in the text lines */

static int
has_host(const struct history_run *r, const char *host)
{
	size_t i;

	for (i = 0; i < r->nhosts; i++)
		if (strcmp(r->hosts[i], host) == 0)
			return 1;
	return 0;
}

/* Each host's first appearance, in run order: whether runs[i].hosts[k] is it. */
static int
first_seen(const struct history *h, size_t i, size_t k)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (has_host(&h->runs[j], h->runs[i].hosts[k]))
			return 0;
	return 1;
}

static void
row_html(FILE *out, const char *host, const struct history_run *r,
    const struct envdiff_fact *f)
{
	const char *cells[5] = { host, r->id, f->key, f->a, f->b };
	size_t c;

	fputs("<tr>", out);
	for (c = 0; c < 5; c++) {
		fputs(c == 1 ? "<td title=\"" : "<td>", out);
		if (c == 1) {
			html_text(out, r->id);
			fputs("\">", out);
			fprintf(out, "%.10s", r->start ? r->start : "");
		} else
			html_text(out, cells[c]);
		fputs("</td>", out);
	}
	fputs("</tr>\n", out);
}

void
history_env_render(const struct history *h, enum report_format f, FILE *out)
{
	struct envdiff d;
	char *err = NULL, *a, *b;
	size_t i, k, j, m, prev, n = 0;

	for (i = 0; i < h->nruns; i++)
		for (k = 0; k < h->runs[i].nhosts; k++) {
			const char *host = h->runs[i].hosts[k];

			if (!first_seen(h, i, k))
				continue;
			/* this host's nights in order, each against the one before */
			for (prev = i, j = i + 1; j < h->nruns; j++) {
				if (!has_host(&h->runs[j], host))
					continue;
				if (envdiff_dirs(h->runs[prev].dir, host, h->runs[j].dir, host, &d,
				    &err) != 0) {
					free(err);	/* no facts kept (a cached night) */
					err = NULL;
				}
				prev = j;
				if (d.n == 0)
					continue;
				if (n++ == 0) {
					if (f == REPORT_HTML)
						fputs("<h2>Environment changes</h2>\n<p>The hosts' "
						    "facts (hosts/NAME.json) that changed from one night "
						    "to the next.</p>\n<div class=\"scroll\"><table "
						    "data-table=\"environment\"><thead><tr><th>host</th>"
						    "<th>night</th><th>fact</th><th>before</th>"
						    "<th>after</th></tr></thead><tbody>\n", out);
					else if (f == REPORT_MD)
						fputs("### Environment changes\n\n", out);
					else
						fputs("ENVIRONMENT CHANGES: the hosts' facts "
						    "(hosts/NAME.json) that changed from one night to the "
						    "next\n", out);
				}
				for (m = 0; m < d.n; m++) {
					if (f == REPORT_HTML) {
						row_html(out, host, &h->runs[j], &d.facts[m]);
						continue;
					}
					a = envdiff_short(d.facts[m].a, SHORT_VALUE);
					b = envdiff_short(d.facts[m].b, SHORT_VALUE);
					fprintf(out, "%s%s %.10s (%s): %s %s -> %s\n",
					    f == REPORT_MD ? "* " : "  ", host,
					    h->runs[j].start ? h->runs[j].start : "", h->runs[j].id,
					    d.facts[m].key, a, b);
					free(a);
					free(b);
				}
				envdiff_release(&d);
			}
		}
	if (n > 0)
		fputs(f == REPORT_HTML ? "</tbody></table></div>\n" : "\n", out);
}
