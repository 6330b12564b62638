package metrics

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// TestFarmAlertRules checks the documented alerting rules with the real
// promtool and runs their unit tests (docs/farm/alerts_test.yml).
func TestFarmAlertRules(t *testing.T) {
	promtool := testpeer.Require(t, "promtool")
	dir := filepath.Join("..", "docs", "farm")
	for _, args := range [][]string{{"check", "rules", "alerts.yml"}, {"test", "rules", "alerts_test.yml"}, {"check", "config", "prometheus.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
