/* PLACEHOLDER: lat_tcp is being written; replace this whole file. */
#include "bench.h"
#include "wire.h"

static int
run(struct trial *t)
{
	return trial_error(t, WIRE_ERR_UNSUPPORTED, "lat_tcp is not implemented yet");
}

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "placeholder" },
	{ NULL, NULL, 0, NULL }
};

const struct bench bench_lat_tcp = { "lat_tcp", "placeholder", "", NULL, metrics, run, NULL };
