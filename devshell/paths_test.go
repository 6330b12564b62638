package devshell

import (
	"strings"
	"testing"
)

func TestFileName(t *testing.T) {
	for _, c := range []struct{ app, want string }{
		{"com.example.app", "com.example.app"},
		{"com.example.app:remote", "com.example.app"},
		{"x;reboot;{cd,sdcard}", "x_reboot__cd_sdcard_"},
		{"a b/c'd\"e$f`g\\h|i&j<k>l(m)n*o?p~q", "a_b_c_d_e_f_g_h_i_j_k_l_m_n_o_p_q"},
		{"ünïcode", "_n_code"},
		{"", "trace"},
		{"..", "trace"},
		{"...", "trace"},
		{":remote", "trace"},
		{strings.Repeat("a", 1100), strings.Repeat("a", MaxNameLen)},
	} {
		if got := FileName(c.app, "trace"); got != c.want {
			t.Errorf("FileName(%q) = %q, want %q", c.app, got, c.want)
		}
	}
	if got := TracePath("com.x:remote"); got != "/sdcard/com.x.trace" {
		t.Errorf("TracePath: %q", got)
	}
	if got := HprofPath("a b"); got != "/sdcard/a_b.hprof" {
		t.Errorf("HprofPath: %q", got)
	}
}

func TestCheckPath(t *testing.T) {
	for _, ok := range []string{"/sdcard/a.trace", "/data/local/tmp/ddmtui-1-2.hprof", ANRPath} {
		if err := CheckPath(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "sdcard/a", "/sdcard/a;reboot", "/sdcard/a b", "/sdcard/$(id)", "/sdcard/../data/x", "/sdcard/..",
		"/" + strings.Repeat("a", MaxPathLen), "/sdcard/a\nb", "/sdcard/'"} {
		if err := CheckPath(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
