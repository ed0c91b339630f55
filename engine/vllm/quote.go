package vllm

import "strings"

// Quoting for copy-pasteable command lines. The rule is POSIX shell single
// quoting (as Python's shlex.quote): a word made only of characters no shell
// treats specially stays bare; any other word is wrapped in single quotes,
// inside which nothing is special, and each single quote in it becomes '\''
// (close, escaped quote, reopen). bash, zsh, dash and the shell-words splitter
// ParseCommand uses all read it back to the same word. One exception keeps a
// leading "~/" bare so a shell still expands the home folder in paths.

// Quote returns s as one shell word.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		if rest == "" {
			return s
		}
		return "~/" + Quote(rest)
	}
	// A leading "=" is zsh's path expansion (=cmd), so only later ones
	// stay bare.
	if isBareWord(s) && s[0] != '=' {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// JoinArgs quotes each argument and joins them with spaces.
func JoinArgs(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Quote(a))
	}
	return b.String()
}

// isBareWord reports whether every byte of s is one no shell gives a meaning
// to ('=' and ':' are safe in arguments; '~' is not, bash expands it after
// '=' in words that look like assignments).
func isBareWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("@%+=:,./_-", c) >= 0:
		default:
			return false
		}
	}
	return true
}
