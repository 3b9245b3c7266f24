# bash completion for fleetmark(1).
#
# Installed by `make install` into share/bash-completion/completions/, where
# bash-completion finds it; or `. contrib/completion/fleetmark.bash` by hand.
# It needs nothing from bash-completion itself.
#
# Commands and options come from the program being completed (`fleetmark
# help --complete [COMMAND]`), so they are never out of date; option
# arguments by their name there: PLAN and FLEET are YAML files, HOSTS the
# hosts and @labels of the inventory given with -f (`fleetmark hosts`), RUN
# and REF the run ids of the results directory (-o, --results) and latest
# (for report and compare, its run groups too: group:ID), TABLE, FORMAT,
# HOW and ORDER their words, SIDE (ab's -A and -B, qualify's -A) the start
# of a kexec.
# shellcheck shell=bash

# _fleetmark_words WORDS...: COMPREPLY from WORDS that start with $cur.
_fleetmark_words()
{
	local w
	COMPREPLY=()
	for w in "$@"; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$w")
	done
}

# _fleetmark_files PATTERN: files matching the glob PATTERN, and directories.
_fleetmark_files()
{
	local f
	COMPREPLY=()
	compopt -o filenames 2>/dev/null
	while IFS= read -r f; do
		if [ -d "$f" ]; then
			COMPREPLY+=("$f")
		else
			# shellcheck disable=SC2053 # a glob on purpose
			[[ $f == $1 ]] && COMPREPLY+=("$f")
		fi
	done < <(compgen -f -- "$cur")
}

# _fleetmark_opt NAME...: the value given to the first of the options NAME
# on the command line, or nothing.
_fleetmark_opt()
{
	local i o
	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		for o in "$@"; do
			if [ "${COMP_WORDS[i]}" = "$o" ]; then
				printf '%s\n' "${COMP_WORDS[i + 1]}"
				return
			fi
		done
	done
}

# Hosts and @labels of the inventory of -f (or the embedded one), after the
# comma-separated words already typed.
_fleetmark_hosts()
{
	local fleet list=() head='' word=$cur h labels l
	fleet=$(_fleetmark_opt -f)
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		word=${cur##*,}
	fi
	while read -r h _ _ _ _ labels _; do
		[ "$h" = HOST ] && continue
		list+=("$h")
		[ "$labels" = - ] && continue
		for l in ${labels//,/ }; do
			list+=("@$l")
		done
	done < <("$fm" hosts ${fleet:+-f "$fleet"} 2>/dev/null)
	list+=(all)
	COMPREPLY=()
	for h in $(printf '%s\n' "${list[@]}" | sort -u); do
		[[ $h == "$word"* ]] && COMPREPLY+=("$head$h")
	done
	compopt -o nospace 2>/dev/null
	[ ${#COMPREPLY[@]} -eq 1 ] && compopt +o nospace 2>/dev/null
}

# Run ids of the results directory, and latest; for report and compare the
# run groups of its runs (group:ID) too; a path completes as one.
_fleetmark_runs()
{
	local dir d g ids=(latest)
	local -A groups=()
	if [[ $cur == */* || $cur == .* ]]; then
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return
	fi
	dir=$(_fleetmark_opt -o -R --results)
	for d in "${dir:-results}"/*/; do
		[ -f "$d/run.json" ] || continue
		if [[ $cmd == report || $cmd == compare ]]; then
			g=$(grep -o -m 1 '"group": *"[A-Za-z0-9._-]*"' "$d/run.json" 2>/dev/null)
			g=${g%\"}
			[ -n "$g" ] && groups[group:${g##*\"}]=1
		fi
		d=${d%/}
		ids+=("${d##*/}")
	done
	_fleetmark_words "${ids[@]}" "${!groups[@]}"
}

_fleetmark()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local fm=${COMP_WORDS[0]} cmd='' i o a arg='' spec words=() nargs=0
	fm=${fm/#\~/$HOME}

	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} != -* ]]; then
			cmd=${COMP_WORDS[i]}
			break
		fi
	done
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			_fleetmark_words -v --verbose -q --quiet -h --help --version
		else
			mapfile -t words < <("$fm" help --complete 2>/dev/null)
			_fleetmark_words "${words[@]}"
		fi
		return 0
	fi

	spec=$("$fm" help --complete "$cmd" 2>/dev/null)
	# The argument the previous word asks for, by its name in the help.
	while read -r o a; do
		if [ "$o" = "$prev" ] && [ -n "$a" ]; then
			arg=$a
		fi
	done <<<"$spec"
	case $arg in
	PLAN | FLEET)	_fleetmark_files '*.y*ml'; return 0 ;;
	HOSTS | HOST)	_fleetmark_hosts; return 0 ;;
	RUN* | REF)	_fleetmark_runs; return 0 ;;
	DIR)		compopt -o filenames 2>/dev/null
			mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return 0 ;;
	FILE)		_fleetmark_files '*'; return 0 ;;
	TABLE)		_fleetmark_words lmbench delta compare compact matrix summary profile kernel failures all; return 0 ;;
	FORMAT)		_fleetmark_words text md csv json html; return 0 ;;
	HOW)		_fleetmark_words none median mean; return 0 ;;
	ORDER)		_fleetmark_words abba alternate random; return 0 ;;
	SIDE)		_fleetmark_words kexec:	# the rest is the user's: a command or a name
			compopt -o nospace 2>/dev/null; return 0 ;;
	?*)		COMPREPLY=(); return 0 ;;	# a name, a number, a URL: nothing to offer
	esac

	if [[ $cur == -* ]]; then
		mapfile -t words < <(printf '%s\n' "$spec" | cut -d' ' -f1)
		_fleetmark_words "${words[@]}"
		return 0
	fi

	# The how-manieth argument this is, options and their values left out.
	for ((i = i + 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*)	while read -r o a; do
				[ "$o" = "${COMP_WORDS[i]}" ] && [ -n "$a" ] && i=$((i + 1))
			done <<<"$spec" ;;
		*)	nargs=$((nargs + 1)) ;;
		esac
	done
	case $cmd in
	run | plan | bisect-run | ab | qualify)
		_fleetmark_files '*.y*ml' ;;
	report | compare)
		_fleetmark_runs ;;
	collect)
		if [ $nargs -eq 0 ]; then _fleetmark_runs; else COMPREPLY=(); fi ;;
	push)
		if [ $nargs -eq 0 ]; then _fleetmark_runs; else COMPREPLY=(); fi ;;
	agent)
		if [ $nargs -eq 0 ]; then _fleetmark_words list path build; else COMPREPLY=(); fi ;;
	list)
		mapfile -t words < <("$fm" list 2>/dev/null | sed -n 's/^\([a-z0-9_]*\): .*/\1/p')
		_fleetmark_words "${words[@]}" ;;
	help)
		mapfile -t words < <("$fm" help --complete 2>/dev/null)
		_fleetmark_words "${words[@]}" ;;
	*)
		COMPREPLY=() ;;
	esac
	return 0
}

complete -F _fleetmark fleetmark
