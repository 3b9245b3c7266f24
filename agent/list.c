/*
 * list.c: describe the registered benchmarks (`fleetmark-agent list`).
 */
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "jline.h"

static const char *
type_name(enum param_type t)
{
	switch (t) {
	case PARAM_INT: return "int";
	case PARAM_CPUS: return "cpus";
	case PARAM_STR: return "string";
	case PARAM_ENUM: return "enum";
	}
	return "?";
}

static void
emit_json(int fd, const char *id, const struct bench *b)
{
	const struct bench_param *p;
	const struct bench_metric *m;
	const struct suite_member *s;
	const struct bench_limit *l;
	struct param_range r;
	struct jline j;

	jl_begin(&j, WIRE_BENCH, id);
	jl_str(&j, "name", b->name);
	jl_str(&j, "summary", b->summary);
	jl_str(&j, "from", b->from);
	jl_arr(&j, "params");
	for (p = b->params; p && p->name; p++) {
		jl_obj(&j, NULL);
		jl_str(&j, "name", p->name);
		jl_str(&j, "type", type_name(p->type));
		jl_str(&j, "default", p->def);
		if (p->type == PARAM_ENUM && p->choices)
			jl_str(&j, "choices", p->choices);
		if (param_range(p, &r) == 0 && r.has_min)
			jl_int(&j, "min", r.min);
		if (param_range(p, &r) == 0 && r.has_max)
			jl_int(&j, "max", r.max);
		jl_str(&j, "help", p->help);
		jl_close(&j);
	}
	jl_close(&j);
	jl_arr(&j, "metrics");
	for (m = b->metrics; m && m->name; m++) {
		jl_obj(&j, NULL);
		jl_str(&j, "name", m->name);
		jl_str(&j, "unit", m->unit);
		jl_str(&j, "direction", m->higher_better ? WIRE_HIGHER_BETTER : WIRE_LOWER_BETTER);
		jl_str(&j, "help", m->help);
		jl_close(&j);
	}
	jl_close(&j);
	if (b->limits) {
		jl_arr(&j, "limits");
		for (l = b->limits; l->a; l++) {
			jl_obj(&j, NULL);
			jl_arr(&j, "product");
			jl_str(&j, NULL, l->a);
			jl_str(&j, NULL, l->b);
			jl_close(&j);
			jl_int(&j, "max", l->max);
			jl_close(&j);
		}
		jl_close(&j);
	}
	if (b->suite) {
		jl_arr(&j, "suite");
		for (s = b->suite; s->bench; s++) {
			jl_obj(&j, NULL);
			jl_str(&j, "bench", s->bench);
			jl_str(&j, "params", s->params ? s->params : "");
			jl_close(&j);
		}
		jl_close(&j);
	}
	jl_emit(&j, fd);
}

static void
emit_text(int fd, const struct bench *b)
{
	const struct bench_param *p;
	const struct bench_metric *m;
	const struct suite_member *s;
	const struct bench_limit *l;
	char range[96];

	dprintf(fd, "%s - %s\n", b->name, b->summary);
	dprintf(fd, "    from: %s\n", b->from);
	for (p = b->params; p && p->name; p++) {
		param_range_text(p, range, sizeof(range));
		dprintf(fd, "    param  %-10s %-6s default %-8s %s%s%s\n", p->name,
		    type_name(p->type), p->def, p->help,
		    p->choices ? (p->type == PARAM_ENUM ? "; one of " : "; ") : "",
		    p->choices ? (p->type == PARAM_ENUM ? p->choices : range) : "");
	}
	for (l = b->limits; l && l->a; l++)
		dprintf(fd, "    limit  %s x %s at most %lld\n", l->a, l->b, l->max);
	for (m = b->metrics; m && m->name; m++)
		dprintf(fd, "    metric %-16s %-6s %s is better; %s\n", m->name, m->unit,
		    m->higher_better ? "higher" : "lower", m->help);
	for (s = b->suite; s && s->bench; s++)
		dprintf(fd, "    runs   %s %s\n", s->bench, s->params ? s->params : "");
}

void
list_emit(int fd, const char *id, int json)
{
	int i;

	for (i = 0; benches[i]; i++) {
		if (json)
			emit_json(fd, id, benches[i]);
		else
			emit_text(fd, benches[i]);
	}
}
