function __assetpack_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __assetpack_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __assetpack_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __assetpack_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __assetpack_parse_tokens -S
    set -l unparsed_tokens (__assetpack_tokens -pc)
    switch $unparsed_tokens[1]
    case 'assetpack'
        __assetpack_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'build'
            __assetpack_parse_subcommand 1 'o/output=' 'archive=' 'threshold=' 'level=' 'pack-level=' 'pack-limit=' 'chunk-size=' 'jobs=' 'follow-symlinks' 'exclude=+' 'no-default-excludes' 'dry-run' 'q/quiet' 'json' 'progress' 'v/verbose' 'print-android-settings' 'immutable-names' 'no-patches' 'sign=' 'version' 'h/help'
        case 'expand'
            __assetpack_parse_subcommand 1 'd/to=' 'root=' 'keep-zips' 'allow-symlinks' 'allow-empty' 'delete-unknown' 'in-place' 'jobs=' 'dry-run' 'no-sync' 'q/quiet' 'json' 'progress' 'v/verbose' 'allow-http' 'public-key=+' 'identity=' 'mirror=+' 'max-download=' 'limit-rate=' 'seed=+' 'verify' 'repair' 'version' 'h/help'
        case 'list'
            __assetpack_parse_subcommand 1 'json' 'version' 'h/help'
        case 'verify'
            __assetpack_parse_subcommand 1 'q/quiet' 'json' 'version' 'h/help'
        case 'check'
            __assetpack_parse_subcommand 1 'page-align' 'json' 'version' 'h/help'
        case 'status'
            __assetpack_parse_subcommand 1 'source=' 'root=' 'keep-zips' 'allow-symlinks' 'json' 'version' 'h/help'
        case 'uninstall'
            __assetpack_parse_subcommand 1 'dry-run' 'q/quiet' 'json' 'version' 'h/help'
        case 'keygen'
            __assetpack_parse_subcommand 0 'out=' 'q/quiet' 'json' 'version' 'h/help'
        case 'sign'
            __assetpack_parse_subcommand 1 'key=' 'q/quiet' 'json' 'version' 'h/help'
        case 'help'
            __assetpack_parse_subcommand -r 1 'version'
        end
    end
end

function __assetpack_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __assetpack_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __assetpack_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __assetpack_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__assetpack_tokens -p)
    if test -z "$(__assetpack_tokens -t)"
        set -l index (count (__assetpack_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'assetpack' -f
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'build' -d 'Pack an asset folder into a bundle: files over the threshold become zips, files of 64 KiB or less go into pack archives, the others are copied.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'expand' -d 'Expand a bundle, an asset folder or a zip/APK onto storage, as an app does at first launch.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'list' -d 'List the entries of a zip archive (size, compressed size, method, CRC-32, name), or the files of a bundle folder: size, CRC-32, how each is stored, and the entries of its packed archives.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'verify' -d 'Read every entry of a zip archive and check sizes and CRC-32, or every file of a bundle folder against its manifest and every entry of its packed archives; exit non-zero at the first bad one.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'check' -d 'Check the packed bundles inside an APK, AAB, IPA or zip: archives stored, stored data aligned, files as the manifest records them.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'status' -d 'Say what a destination holds: not installed, partial, installed or outdated.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'uninstall' -d 'Remove a tree that expand installed, its record and what an interrupted expand left beside it.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'keygen' -d 'Make an Ed25519 key pair that signs bundles: KEYFILE (private, mode 0600) and KEYFILE.pub.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'sign' -d 'Sign a bundle folder\'s manifest with a private key: writes assetpack-meta/manifest.sig.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack build" -eq 1' -fa '(__assetpack_complete_directories)'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" o output' -s 'o' -l 'output' -d 'The bundle folder to write (default: assets.bundle in the current directory).' -rfa '(__assetpack_complete_directories)'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" archive' -l 'archive' -d 'Write the whole tree as ONE zip instead of a folder.' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'zip\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" threshold' -l 'threshold' -d 'Pack files larger than this: 512K, 4M, 1048576; 0 packs every file.' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" level' -l 'level' -d 'Deflate level, 0 to 9 (0 stores packed files).' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" pack-level' -l 'pack-level' -d 'Deflate level of files in pack archives, 0 to 9: 0 stores them (fastest first launch), 6 makes the bundle smaller.' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" pack-limit' -l 'pack-limit' -d 'Gather files up to this size into pack archives: 64K, 0 copies every small file.' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" chunk-size' -l 'chunk-size' -d 'Average size of the content-defined chunks packed files are cut into, a power of two from 4K to 16M: smaller chunks make smaller updates after scattered edits, larger ones a smaller bundle.' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" jobs' -l 'jobs' -d 'Threads working at once (default: one per core).' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" follow-symlinks' -l 'follow-symlinks' -d 'Follow symbolic links (anywhere they point) instead of refusing them.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build"' -l 'exclude' -d 'Leave out files and folders matching <glob> (repeatable): a name at any depth (*.psd), a path from <source> (docs/*.md, raw/**/*.tmp), folders only with a trailing / (cache/).' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" no-default-excludes' -l 'no-default-excludes' -d 'Pack what is left out by default: .DS_Store ._* Thumbs.db desktop.ini .git .svn .hg *~ *.swp *.swo .#*.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" dry-run' -l 'dry-run' -d 'Say what would be done, in files and bytes, and change nothing.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" q quiet' -l 'quiet' -s 'q' -d 'Print nothing on success.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" progress' -l 'progress' -d 'Show the progress line also when stderr is not a terminal (a CI log): a new line at most once a second.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" v verbose' -l 'verbose' -s 'v' -d 'List each file as it is written (its path, one a line, on stdout).'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" print-android-settings' -l 'print-android-settings' -d 'Also print the Gradle and aapt settings that ship this bundle in an Android app as it is.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" immutable-names' -l 'immutable-names' -d 'Name every archive and plain file by the SHA-256 of its bytes in assetpack-meta/objects/, for a server: a new version only adds names, so a CDN may cache them for ever (only the identity, manifest and signature change).'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" no-patches' -l 'no-patches' -d 'Write no patches: by default a build over the previous bundle at -o gives each changed file patches from that version (assetpack-meta/patches/), which an update from it fetches instead of the changed chunks.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" sign' -l 'sign' -d 'Sign the bundle\'s manifest with this private key (from `assetpack keygen`): writes assetpack-meta/manifest.sig, which `expand URL --public-key` requires.' -rF
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack build" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack expand" -eq 1' -F
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" C d to' -s 'd' -s 'C' -l 'to' -d 'The folder to create or update.' -rfa '(__assetpack_complete_directories)'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" root' -l 'root' -d 'The folder inside the archive or folder where the tree starts (e.g. assets/data of an APK).' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" keep-zips' -l 'keep-zips' -d 'Copy .zip files of a tree without a manifest as they are instead of unzipping them.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" allow-symlinks' -l 'allow-symlinks' -d 'Create symbolic-link entries of archives (only links that stay inside <dir>).'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" allow-empty' -l 'allow-empty' -d 'Expand a tree that holds no file (by default that is an error: a misspelt --root, an empty source).'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" delete-unknown' -l 'delete-unknown' -d 'On an upgrade, remove what <dir> holds that assetpack did not write, and list it.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" in-place' -l 'in-place' -d 'On an upgrade, change <dir> itself: write only what changed instead of switching in a whole new tree.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" jobs' -l 'jobs' -d 'Threads working at once (default: one per core).' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" dry-run' -l 'dry-run' -d 'Say what would be done, in files and bytes, and change nothing.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" no-sync' -l 'no-sync' -d 'Do not flush the tree to the disk before recording it complete: faster, still safe if the process is killed, not if the power fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" q quiet' -l 'quiet' -s 'q' -d 'Print nothing on success.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" progress' -l 'progress' -d 'Show the progress line also when stderr is not a terminal (a CI log): a new line at most once a second.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" v verbose' -l 'verbose' -s 'v' -d 'List each file as it is written (its path, one a line, on stdout).'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" allow-http' -l 'allow-http' -d 'Allow a plain http:// bundle URL (a loopback or trusted network); by default only https://.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand"' -l 'public-key' -d 'Install a bundle from a server only when its manifest is signed by this public key (from `assetpack keygen`); repeat it to trust several keys.' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'pub\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" identity' -l 'identity' -d 'Install a bundle from a server only when it has this identity (64 hex digits, as build, expand and status print it).' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand"' -l 'mirror' -d 'The same bundle on another server, asked when the first fails (refused, cut mid-transfer, timed out, 5xx, a file missing); repeat it for several, asked in order.' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" max-download' -l 'max-download' -d 'Refuse to download more than this much file data (e.g. 50M), exit status 77 (declined): --dry-run shows how much an update would fetch.' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" limit-rate' -l 'limit-rate' -d 'Receive at most this many bytes per second over all connections (e.g. 1M), like curl\'s --limit-rate.' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand"' -l 'seed' -d 'A folder laid out as the bundle\'s tree (an older copy) whose files lend the chunks of large files they hold, instead of downloading them; repeat it for several.' -rfa '(__assetpack_complete_directories)'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" verify' -l 'verify' -d 'Read every installed file again and compare it with the install record and the source; change nothing.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" repair' -l 'repair' -d 'Check as --verify does, then write again what differs (or install, when <dir> holds another version).'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack expand" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack list" -eq 1' -fa '(set -l exts \'zip\' \'apk\' \'jar\' \'ipa\' \'aar\';for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.{$exts};printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack list" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack list" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack verify" -eq 1' -fa '(set -l exts \'zip\' \'apk\' \'jar\' \'ipa\' \'aar\';for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.{$exts};printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack verify" q quiet' -l 'quiet' -s 'q' -d 'Print nothing on success.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack verify" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack verify" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack check" page-align' -l 'page-align' -d 'Require stored data to start at a multiple of 4096 bytes (a page) instead of 4.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack check" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack check" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack status" source' -l 'source' -d 'A bundle, asset folder or zip/APK to compare with (outdated when its identity differs).' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack status" root' -l 'root' -d 'With --source: the folder inside it where the tree starts, as for expand.' -rfka ''
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack status" keep-zips' -l 'keep-zips' -d 'With --source: as expand --keep-zips.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack status" allow-symlinks' -l 'allow-symlinks' -d 'With --source: as expand --allow-symlinks.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack status" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack status" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack uninstall" dry-run' -l 'dry-run' -d 'Say what would be done, in files and bytes, and change nothing.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack uninstall" q quiet' -l 'quiet' -s 'q' -d 'Print nothing on success.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack uninstall" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack uninstall" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack uninstall" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack keygen" out' -l 'out' -d 'The private key file to write; the public key goes to <keyfile>.pub.' -rF
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack keygen" q quiet' -l 'quiet' -s 'q' -d 'Print nothing on success.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack keygen" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack keygen" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack keygen" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_positional "assetpack sign" -eq 1' -fa '(__assetpack_complete_directories)'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack sign" key' -l 'key' -d 'The private key file (from `assetpack keygen`).' -rF
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack sign" q quiet' -l 'quiet' -s 'q' -d 'Print nothing on success.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack sign" json' -l 'json' -d 'Print one line of JSON (schema 1, see the README), also when the command fails.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack sign" version' -l 'version' -d 'Show the version.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack sign" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'assetpack' -n '__assetpack_should_offer_completions_for_flags_or_options "assetpack help" version' -l 'version' -d 'Show the version.'
