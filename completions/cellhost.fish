# fish completion for cellhost(1). Installed as
# share/fish/vendor_completions.d/cellhost.fish (fish reads it from
# /usr/share and /usr/local/share; for another prefix add
# PREFIX/share/fish/vendor_completions.d to $fish_complete_path).
# The option lists are those of `cellhost COMMAND --help`.

set -l commands render list-plugins check-plugin new-plugin help
complete -c cellhost -f
complete -c cellhost -n "not __fish_seen_subcommand_from $commands" -a render -d 'Render messages'
complete -c cellhost -n "not __fish_seen_subcommand_from $commands" -a list-plugins -d 'List plugins and the registry'
complete -c cellhost -n "not __fish_seen_subcommand_from $commands" -a check-plugin -d 'Check one plugin'
complete -c cellhost -n "not __fish_seen_subcommand_from $commands" -a new-plugin -d 'Write a plugin directory'
complete -c cellhost -n "not __fish_seen_subcommand_from $commands" -a help -d 'Show the help of a command'
complete -c cellhost -n "not __fish_seen_subcommand_from $commands" -l version -d 'Show the version'
complete -c cellhost -n "__fish_seen_subcommand_from help" -a "render list-plugins check-plugin new-plugin"
complete -c cellhost -s h -l help -d 'Show the help'

# Shared by render, list-plugins and check-plugin.
set -l loading "__fish_seen_subcommand_from render list-plugins check-plugin"
complete -c cellhost -n $loading -l plugin-path -r -a '(__fish_complete_directories)' -d 'Look for plugins in DIR first'
complete -c cellhost -n $loading -l allow-insecure-plugins -d 'Load plugin files others could have written'

set -l render "__fish_seen_subcommand_from render"
complete -c cellhost -n $render -F
complete -c cellhost -n $render -l format -x -a 'ansi plain json html' -d 'Output format'
complete -c cellhost -n $render -l follow -d 'Keep reading FILE as it grows, like tail -F'
complete -c cellhost -n $render -l lines -x -d 'With --follow: start from the last N messages'
complete -c cellhost -n $render -l from -x -a 'cellhost telegram matrix discord slack whatsapp' -d 'Read every input as FORMAT'
complete -c cellhost -n $render -l width -x -d 'Columns, 12 to 1000'
complete -c cellhost -n $render -l me -x -d "The viewer's user id"
complete -c cellhost -n $render -l renderer -x -d 'Use CLASS for message class TYPE (TYPE=CLASS)'
complete -c cellhost -n $render -l color -x -a 'auto always never' -d 'Colours in ansi output'
complete -c cellhost -n $render -l paging -x -a 'auto always never' -d 'Page the output'
complete -c cellhost -n $render -l bubble-width -x -d 'The most columns a bubble takes'
complete -c cellhost -n $render -l width-mode -x -a 'grapheme wcwidth auto' -d 'How text is measured'
complete -c cellhost -n $render -l max-rows -x -d 'Rows of content per message'
complete -c cellhost -n $render -l max-bytes -x -d 'Bytes of content per message'
complete -c cellhost -n $render -l verbose -d 'Plugin logs, input formats, import summaries'
complete -c cellhost -n $render -l images -x -a 'symbols none' -d 'Picture previews'
complete -c cellhost -n $render -l image-rows -x -d 'The most rows a preview takes'
complete -c cellhost -n $render -l media-dir -r -a '(__fish_complete_directories)' -d 'Resolve relative media paths against DIR'
complete -c cellhost -n $render -l isolation -x -a 'none auto shared each' -d 'Where plugin code runs'
complete -c cellhost -n $render -l plugin-timeout -x -d "A plugin's time limit per message (ms)"
complete -c cellhost -n $render -l plugin-memory -x -d "A worker's memory limit (MiB)"

set -l list "__fish_seen_subcommand_from list-plugins"
complete -c cellhost -n $list -l json -d 'One JSON object'
complete -c cellhost -n $list -l verbose -d 'Methods, encodings, the search path'
complete -c cellhost -n $list -l renderer -x -d 'Show the registry with this override (TYPE=CLASS)'
complete -c cellhost -n $list -l rescan -d 'Describe every plugin again'

set -l check "__fish_seen_subcommand_from check-plugin"
complete -c cellhost -n $check -k -a '(__fish_complete_suffix .so)'
complete -c cellhost -n $check -l json -d 'One JSON object per check'
complete -c cellhost -n $check -l timeout -x -d 'The time one render call may take (ms)'
complete -c cellhost -n $check -l width -x -d 'Render the samples at content width N'
complete -c cellhost -n $check -l plugin-memory -x -d "Each check process's memory limit (MiB)"

set -l new "__fish_seen_subcommand_from new-plugin"
complete -c cellhost -n $new -l lang -x -a 'c swift' -d 'The language'
complete -c cellhost -n $new -l type -x -d 'The message class the cell renders'
complete -c cellhost -n $new -l output -r -a '(__fish_complete_directories)' -d 'Where to write'
complete -c cellhost -n $new -l sdk -r -a '(__fish_complete_directories)' -d 'A CellHost checkout or installation prefix'
