#!/usr/bin/env bash
# t722-env-facts: `fleetmark-agent env` records what makes a machine known
# and quiet: microcode, SMT, boost, cpuidle (states, disabled, limit), the
# clocksource, isolated and nohz_full CPUs, irqbalance, the kernel config
# (its source, a hash, the key options) and the documented sysctls, each
# the value this machine's /proc and /sys hold, or null where it has none;
# the text form has the same facts.
# cost: 1 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_tools jq
[ -x "$AGENT" ] || { echo "Bail out! no agent at $AGENT"; exit 1; }

J=$("$AGENT" env --json)
is "$(printf '%s' "$J" | jq -r '[has("microcode", "smt", "boost", "boost_control", "cpuidle", "clocksource", "isolcpus", "nohz_full", "irqbalance", "kernel_config", "sysctl")] | all')" \
	true "env --json has every fact of docs/environment.md"
is "$(printf '%s' "$J" | jq -r '.sysctl | keys_unsorted | join(" ")')" \
	"kernel.randomize_va_space kernel.numa_balancing kernel.sched_autogroup_enabled kernel.perf_event_paranoid kernel.nmi_watchdog kernel.watchdog kernel.timer_migration kernel.sched_rt_runtime_us kernel.kptr_restrict vm.swappiness vm.overcommit_memory vm.zone_reclaim_mode vm.dirty_ratio vm.dirty_background_ratio vm.stat_interval vm.nr_hugepages" \
	"the documented sysctls, in order"
is "$(printf '%s' "$J" | jq -r '.sysctl["kernel.randomize_va_space"]')" "$(cat /proc/sys/kernel/randomize_va_space)" \
	"kernel.randomize_va_space as /proc/sys says"
if [ -r /sys/devices/system/clocksource/clocksource0/current_clocksource ]; then
	is "$(printf '%s' "$J" | jq -r .clocksource)" "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" \
		"the clocksource"
else
	is "$(printf '%s' "$J" | jq -r .clocksource)" null "no clocksource: null"
fi
if [ -r /sys/devices/system/cpu/smt/control ]; then
	is "$(printf '%s' "$J" | jq -r .smt)" "$(cat /sys/devices/system/cpu/smt/control)" "SMT control"
else
	is "$(printf '%s' "$J" | jq -r .smt)" null "no SMT control: null"
fi
if [ -e /sys/devices/system/cpu/intel_pstate/no_turbo ] || [ -e /sys/devices/system/cpu/cpufreq/boost ]; then
	like "$(printf '%s' "$J" | jq -r .boost)" '^(on|off)$' "boost on or off"
else
	is "$(printf '%s' "$J" | jq -r '.boost, .boost_control' | xargs)" "null null" "no boost control: null"
fi
m=$(awk -F': *' '/^microcode/ { print $2; exit }' /proc/cpuinfo)
is "$(printf '%s' "$J" | jq -r .microcode)" "${m:-null}" "microcode as /proc/cpuinfo says"
if [ -e /sys/devices/system/cpu/cpu0/cpuidle/state0/name ]; then
	is "$(printf '%s' "$J" | jq -r .cpuidle.states)" "$(cat /sys/devices/system/cpu/cpu0/cpuidle/state*/name | paste -sd,)" \
		"cpuidle states: cpu0's, by name"
fi
if [ -r /proc/config.gz ] || [ -r "/boot/config-$(uname -r)" ]; then
	like "$(printf '%s' "$J" | jq -r .kernel_config.hash)" '^fnv1a64:[0-9a-f]{16}$' "the kernel config's hash"
	hz=$({ cat "/boot/config-$(uname -r)" 2>/dev/null || zcat /proc/config.gz; } | sed -n 's/^CONFIG_HZ=//p' | head -1)
	is "$(printf '%s' "$J" | jq -r .kernel_config.options.CONFIG_HZ)" "${hz:-null}" "... and its CONFIG_HZ"
	is "$(printf '%s' "$J" | jq -r '.kernel_config.options | has("CONFIG_PREEMPT") and has("CONFIG_NO_HZ_FULL") and has("CONFIG_TRANSPARENT_HUGEPAGE")')" \
		true "... and the key options, null when not set"
else
	is "$(printf '%s' "$J" | jq -r .kernel_config)" null "no kernel config: null"
fi
T=$("$AGENT" env)
like "$T" $'sysctl.kernel.randomize_va_space: [0-9]' "env (text): the sysctls"
like "$T" $'kernel_config\\.(hash: fnv1a64|: unavailable)' "env (text): the kernel config"

done_testing
