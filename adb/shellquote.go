package adb

import "strings"

// ShellQuote makes s one word for the device's shell (the mksh or toybox sh
// behind shell: and exec:, and any POSIX sh): inside single quotes nothing
// is special, and a single quote itself is closed, escaped and reopened (the
// four characters quote, backslash, quote, quote). Every argument built
// from data — a path, a package name, anything a VM or a device said — goes
// through it before it reaches a command line.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !shellPlain(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellCommand joins a command name and its arguments into one command line,
// each argument quoted with ShellQuote.
func ShellCommand(name string, args ...string) string {
	var b strings.Builder
	b.WriteString(name)
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(ShellQuote(a))
	}
	return b.String()
}

// shellPlain reports a character that means nothing to a POSIX shell
// anywhere in a word, so a word made of them needs no quotes (this keeps
// command lines readable in logs and in the simulator's parser).
func shellPlain(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ',' || r == ':' || r == '@' || r == '%'
}
