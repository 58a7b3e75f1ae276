# bash completion for mcpfs. Commands and options come from mcpfs's own
# --help, server names from 'mcpfs servers --names' (which starts nothing),
# so this file never falls out of step with the binary.

# The words before the current one that pick the config and data root.
_mcpfs_globals() {
	local i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--config | --root) printf '%s\n' "${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}"; ((i++)) ;;
		-*) ;;
		*) return ;;
		esac
	done
}

_mcpfs() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i cmd= ncmd=0 words
	local -a globals
	COMPREPLY=()
	mapfile -t globals < <(_mcpfs_globals)
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--config | --root) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; ncmd=$i; break ;;
		esac
	done
	case $prev in
	--config | --root | --out | --templates | --socket | --mount | -o)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	esac
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			words="--config --root --help --version"
		else
			words=$(mcpfs --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
		fi
		mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
		return
	fi
	if [[ $cur == -* ]]; then
		words=$(mcpfs "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$words --help" -- "$cur")
		return
	fi
	# The first word after the command: a verb, a server, or a file.
	if ((COMP_CWORD == ncmd + 1)); then
		case $cmd in
		tools | call | login | logout)
			words=$(mcpfs "${globals[@]}" servers --names 2>/dev/null)
			;;
		workspace | session | skill | token | pii)
			words=$(mcpfs "$cmd" --help 2>/dev/null |
				sed -n "s/^\(usage:\)\{0,1\} *mcpfs $cmd \([a-z]*\).*/\2/p" | sort -u)
			;;
		exec | mount)
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return
			;;
		*) return ;;
		esac
		mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
	fi
}

complete -F _mcpfs mcpfs
