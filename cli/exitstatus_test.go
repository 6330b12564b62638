package cli

import (
	"strings"
	"testing"
)

// A flag or value that cannot work, an operand count a command does not
// take, a flag before a command that does not take it and an unknown
// subcommand are all command-line errors: exit status 2, one line naming
// the help to read (issue 38 #13: they exited 1, `config bogus` 3).
func TestCommandLineErrorsExit2(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scan", "99-1", "list"}, `--scan: bad port range "99-1"`},
		{[]string{"sim", "--vms", "-1"}, "--vms -1: must be within 1..1000"},
		{[]string{"sim", "--local", "65535", "--vms", "3"}, "--local 65535"},
		{[]string{"serve", "--metrics", "notaport", "--adb", "off", "--scan", "off"}, `--metrics: address "notaport"`},
		{[]string{"views", "--capture", "X", "--pid", "1", "--adb", "off", "--scan", "off"}, "--capture needs -o FILE.png"},
		{[]string{"--adb", "off", "sim"}, `flag --adb given before "sim", which does not take it`},
		{[]string{"config", "bogus"}, `unknown subcommand "bogus" (want one of path, default)`},
		{[]string{"config"}, "want a subcommand"},
		{[]string{"hprof", "analyze"}, "hprof analyze takes one FILE"},
		{[]string{"hprof", "path", "f.hprof", "--json"}, "hprof path takes a FILE and one or more object IDs"},
		{[]string{"hprof", "path", "f.hprof", "zz"}, "object id zz"},
		{[]string{"trace", "a", "b"}, "trace: want one FILE, got 2"},
		{[]string{"completion", "tcsh"}, "want bash, zsh or fish"},
		{[]string{"list", "--adb", "nohost"}, `--adb "nohost": want HOST:PORT or off`},
		{[]string{"serve", "--select", "-4", "--scan", "off", "--adb", "off"}, "--select -4"},
	} {
		_, _, err := runAppSplit(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || ExitStatus(err) != 2 || !strings.Contains(err.Error(), "--help)") {
			t.Errorf("%q: err %v (exit %d), want %q and exit 2", tc.args, err, ExitStatus(err), tc.want)
		}
	}
}
