/*
 * sim-rng.h: the simulations' random numbers (tests/bench/nightly-sim.c,
 * nightly-model.c): PCG32 (O'Neill 2014, "PCG: A Family of Simple Fast
 * Space-Efficient Statistically Good Algorithms for Random Number
 * Generation", the XSH RR output of a 64-bit LCG), seeded by setting rng.
 * Header-only: each simulation is one file.
 */
#ifndef FLEETMARK_SIM_RNG_H
#define FLEETMARK_SIM_RNG_H

#include <stdint.h>

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint32_t
next(void)
{
	uint64_t old = rng;
	uint32_t x, r;

	rng = old * 6364136223846793005ULL + 1442695040888963407ULL;
	x = (uint32_t)(((old >> 18) ^ old) >> 27);
	r = (uint32_t)(old >> 59);
	return (x >> r) | (x << ((-r) & 31));
}

#endif /* FLEETMARK_SIM_RNG_H */
