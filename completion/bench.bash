# bash completion for bench. Everything it offers comes from bench itself,
# so it cannot fall behind the binary: the commands from `bench --help`, a
# command's flags from `bench COMMAND --help`, target names from
# `bench targets`, and the values of --format, --verify and --store from the
# message bench gives for a value it does not know. Specs are *.yaml files.

# The names bench lists after "use", "one of" or "the stores are" when it
# refuses VALUE for FLAG of CMD.
_bench_values()
{
    "$1" "$2" "$3" '?' 2>&1 >/dev/null |
        sed -n -e "s/.*; use //p" -e "s/.* is one of \(.*\), not .*/\1/p" \
            -e "s/.*; the stores are //p" | head -n 1 | sed -e 's/,/ /g' -e 's/ or / /g'
}

_bench_targets()
{
    "$1" targets 2>/dev/null | sed -n 's/^\([a-z][a-z0-9_-]*\) .*/\1/p'
}

_bench()
{
    local bench=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev='' cmd=''
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    [ "$COMP_CWORD" -gt 1 ] && cmd=${COMP_WORDS[1]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        local cmds
        cmds=$("$bench" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
        mapfile -t COMPREPLY < <(compgen -W "$cmds help --help --version --man" -- "$cur")
        return
    fi
    case $cmd in
    help)
        [ "$COMP_CWORD" -eq 2 ] && mapfile -t COMPREPLY < <(compgen -W \
            "$("$bench" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')" -- "$cur")
        return
        ;;
    --man)
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        return
        ;;
    esac
    case $prev in
    --targets)
        # a comma-separated list: complete the name after the last comma
        local head=${cur%"${cur##*,}"} name
        for name in $(_bench_targets "$bench"); do
            case $name in "${cur##*,}"*) COMPREPLY+=("$head$name") ;; esac
        done
        return
        ;;
    --format | -f | --verify | --store)
        mapfile -t COMPREPLY < <(compgen -W "$(_bench_values "$bench" "$cmd" "$prev")" -- "$cur")
        return
        ;;
    --output | --samples | --hlog | --html | --results | --store-file)
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
        ;;
    --iterations | --warmup | --runs | --prefill | --duration | --rate | --interval | --seed | \
        --label | --cpu | --progress | --process-cmd | --trace | --threshold | --metric | \
        --pairs | --listen | --shard | --start-at | --schema)
        return # a value bench cannot guess
        ;;
    esac
    if [[ $cur == -* ]]; then
        local flags
        flags=$("$bench" "$cmd" --help 2>/dev/null | sed -n 's/^  \(-h, \)\{0,1\}\(--[a-z-]*\).*/\2/p')
        mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
        return
    fi
    case $cmd in
    lint | plan | run | serve | setup | teardown | verify)
        # specs, and directories to look in
        mapfile -t COMPREPLY < <(compgen -f -X '!*.y*ml' -- "$cur"; compgen -d -S / -- "$cur")
        compopt -o nospace 2>/dev/null
        local i
        for i in "${!COMPREPLY[@]}"; do # a file is a whole word: a space after it
            [ -d "${COMPREPLY[i]}" ] || COMPREPLY[i]="${COMPREPLY[i]} "
        done
        ;;
    compare | gate | report | merge)
        # result files; bench merge --logs merges interval logs
        local ext='!*.json'
        [[ $cmd == merge && " ${COMP_WORDS[*]} " == *" --logs "* ]] && ext='!*.hlog'
        mapfile -t COMPREPLY < <(compgen -f -X "$ext" -- "$cur"; compgen -d -S / -- "$cur")
        compopt -o nospace 2>/dev/null
        local i
        for i in "${!COMPREPLY[@]}"; do
            [ -d "${COMPREPLY[i]}" ] || COMPREPLY[i]="${COMPREPLY[i]} "
        done
        ;;
    esac
}

complete -F _bench bench
