/**
 * The completion scripts `rebalance-doctor completion SHELL` prints. Each only hands the words typed so far to
 * `rebalance-doctor completion-values -- WORDS…` (core/completion.ts decides, live names included) and offers
 * what comes back, one per line; a last line `:files` leaves the word to the shell's file completion.
 */

export const SHELLS = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof SHELLS)[number]

export function completionScript(shell: Shell, bin: string): string {
  const fn = `_${bin.replace(/[^A-Za-z0-9_]/g, '_')}`
  if (shell === 'bash') {
    return `# ${bin} completion for bash: source it, or save it as ~/.local/share/bash-completion/completions/${bin}
${fn}() {
  # the words up to the cursor split on blanks only (bash would split HOST:PORT and --flag=value)
  local line="\${COMP_LINE:0:COMP_POINT}" words cur="\${COMP_WORDS[COMP_CWORD]}" c IFS
  read -ra words <<< "$line"
  [[ "$line" =~ [[:blank:]]$ ]] && words+=("")
  local full="\${words[\${#words[@]}-1]}"
  local -a out
  IFS=$'\\n' out=($(${bin} completion-values -- "\${words[@]:1}" 2>/dev/null))
  if (( \${#out[@]} > 0 )) && [[ "\${out[\${#out[@]}-1]}" == ":files" ]]; then
    IFS=$'\\n' COMPREPLY=($(compgen -f -- "$cur"))
    return
  fi
  # bash replaces only its own last word (after a ':' or '='): drop what comes before it
  local drop="\${full%"$cur"}"
  COMPREPLY=()
  for c in "\${out[@]}"; do [[ -n "$c" ]] && COMPREPLY+=("\${c#"$drop"}"); done
}
complete -o nosort -F ${fn} ${bin} 2>/dev/null || complete -F ${fn} ${bin}
`
  }
  if (shell === 'zsh') {
    return `#compdef ${bin}
# ${bin} completion for zsh: save it as _${bin} in a directory of $fpath, or source it after compinit
${fn}() {
  local -a out
  out=("\${(@f)$(${bin} completion-values -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  out=(\${out:#})
  if [[ "\${out[-1]}" == ":files" ]]; then
    _files
    return
  fi
  compadd -Q -- "\${out[@]}"
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${bin}
fi
`
  }
  return `# ${bin} completion for fish: save it as ~/.config/fish/completions/${bin}.fish
function __${fn}
    set -l words (commandline -opc)
    set -e words[1]
    set -l out (${bin} completion-values -- $words (commandline -ct) 2>/dev/null)
    if test (count $out) -gt 0; and test "$out[-1]" = ":files"
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\\n' $out
end
complete -c ${bin} -f -a '(__${fn})'
`
}
