# bash completion for cellhost(1). Installed as
# share/bash-completion/completions/cellhost (loaded on demand by the
# bash-completion package); without it, `source` this file from ~/.bashrc.
# Self-contained: it needs none of bash-completion's helpers.
# The option lists are those of `cellhost COMMAND --help` (InstallTests
# compares them, so they cannot drift).

_cellhost_options() {
    case $1 in
        render) echo "--format --from --width --me --renderer --plugin-path --color --paging --bubble-width
                      --width-mode --max-rows --max-bytes --verbose --images --image-rows --media-dir
                      --isolation --plugin-timeout --plugin-memory --allow-insecure-plugins --follow --lines
                      --help" ;;
        list-plugins) echo "--json --verbose --plugin-path --renderer --rescan --allow-insecure-plugins --help" ;;
        check-plugin) echo "--json --plugin-path --timeout --width --plugin-memory --allow-insecure-plugins --help" ;;
        new-plugin) echo "--lang --type --output --sdk --help" ;;
    esac
}

_cellhost() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev="" option=""
    local commands="render list-plugins check-plugin new-plugin"
    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()

    # --option=VALUE: bash splits it at '=' into "--option" "=" "VALUE".
    if [[ $cur == = ]]; then
        option=$prev; cur=""
    elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then
        option=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $prev == --* ]]; then
        option=$prev
    fi

    # The command: the first word after `cellhost` that is no option.
    local command="" i
    for (( i = 1; i < COMP_CWORD; i++ )); do
        case ${COMP_WORDS[i]} in
            -*|=) ;;
            *) command=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
        elif [[ $prev == --version ]]; then
            :
        else
            mapfile -t COMPREPLY < <(compgen -W "$commands help" -- "$cur")
        fi
        return 0
    fi
    case $command in
        help) (( COMP_CWORD == i + 1 )) && mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur"); return 0 ;;
        render|list-plugins|check-plugin|new-plugin) ;;
        *) return 0 ;;
    esac

    # The value of an option.
    local values=""
    case $option in
        --format) values="ansi plain json html" ;;
        --from) values="cellhost telegram matrix discord slack whatsapp" ;;
        --color|--paging) values="auto always never" ;;
        --width-mode) values="grapheme wcwidth auto" ;;
        --images) values="symbols none" ;;
        --isolation) values="none auto shared each" ;;
        --lang) values="c swift" ;;
        --plugin-path|--media-dir|--output|--sdk)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return 0 ;;
        --width|--me|--renderer|--max-rows|--max-bytes|--bubble-width|--image-rows|--plugin-timeout|--plugin-memory|--timeout|--type)
            return 0 ;;
    esac
    if [[ -n $values ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
        return 0
    fi

    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_cellhost_options "$command")" -- "$cur")
        return 0
    fi
    case $command in
        render)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
        check-plugin)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -X '!*.so' -- "$cur"; compgen -d -- "$cur") ;;
    esac
    return 0
}

complete -F _cellhost cellhost
