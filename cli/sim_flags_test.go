package cli

import (
	"strings"
	"testing"
)

// TestSimFlagsValidated: issue 29 #3. `sim --vms -3` panicked (makeslice),
// `--vms 0` served nothing without a word, `--api 99` was accepted. sim and
// demo refuse such flags before anything starts, naming the flag.
func TestSimFlagsValidated(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--vms", "-3"}, "--vms -3: must be within 1..1000"},
		{[]string{"--vms", "0"}, "--vms 0: must be within 1..1000"},
		{[]string{"--vms", "1001"}, "--vms 1001: must be within 1..1000"},
		{[]string{"--api", "99"}, "--api 99: not an Android API level the simulator knows (1..36"},
		{[]string{"--api", "-1"}, "--api -1: not an Android API level"},
		{[]string{"--threads", "-1"}, "--threads -1: must be within 0..10000"},
		{[]string{"--heap-mb", "-5"}, "--heap-mb -5: must be within 0..65536"},
		{[]string{"--interval", "0s"}, "--interval 0s: must be positive"},
		{[]string{"--local", "65535", "--vms", "3"}, "--local 65535: the 3 VMs need ports 65535..65537"},
		{[]string{"--local", "0", "--adbd", "70000"}, "--adbd 70000: not a port"},
	} {
		for _, cmd := range []string{"sim", "demo"} {
			if cmd == "demo" && (tc.args[0] == "--local" || tc.args[0] == "--adbd") {
				continue // sim's own flags
			}
			args := append([]string{cmd}, tc.args...)
			out, err := runApp(t, args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err %v (out %q), want %q", strings.Join(args, " "), err, out, tc.want)
			}
		}
	}
}
