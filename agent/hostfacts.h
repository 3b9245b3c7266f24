/*
 * hostfacts.h: the facts of `env` that say how quiet and how known a
 * machine is (docs/environment.md): microcode, SMT, turbo/boost, cpuidle
 * states and their limit, the clocksource, isolated and nohz_full CPUs,
 * irqbalance, the kernel's config (a hash and its key options) and a
 * documented set of sysctls.
 *
 * Everything comes from /proc and /sys (and /boot/config-RELEASE, or
 * /proc/config.gz through gzip -dc); every read is bounded and a fact the
 * host does not expose is null, never guessed.
 */
#ifndef FLEETMARK_HOSTFACTS_H
#define FLEETMARK_HOSTFACTS_H

struct jline;

/*
 * Add the facts to the env line j (json) or print them as "key: value"
 * lines on fd (text, j unused).
 */
void	hostfacts_emit(struct jline *j, int fd, int json);

#endif /* FLEETMARK_HOSTFACTS_H */
