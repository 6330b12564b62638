package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// TestServeMetricsScrapedByPrometheus starts `serve --metrics` on two
// simulated VMs and a real Prometheus server scraping it every second, then
// asks Prometheus's query API for the VMs' heap figures and thread counts.
func TestServeMetricsScrapedByPrometheus(t *testing.T) {
	leakcheck.Check(t)
	promBin := testpeer.Require(t, "prometheus")
	dev := sim.NewDevice("t")
	art := sim.NewVM(sim.VMSpec{PID: 611, App: "com.example.metrics", Family: sim.ART, Threads: 3, HeapMax: 96 << 20, Seed: 8})
	dalvik := sim.NewVM(sim.VMSpec{PID: 612, App: "com.example.old", Family: sim.Dalvik, Threads: 2, HeapMax: 48 << 20, Seed: 9})
	dev.Add(art)
	dev.Add(dalvik)
	t.Cleanup(func() { dev.Close() })
	ports := freePorts(t, 4)
	if _, err := dev.ServeLocal("127.0.0.1", ports); err != nil {
		t.Fatal(err)
	}
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", ports+2)
	promAddr := fmt.Sprintf("127.0.0.1:%d", ports+3)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		app := NewApp()
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		err := app.RunContext(ctx, []string{"ddmtui", "serve", "--adb", "off", "--scan", fmt.Sprintf("%d-%d", ports, ports+1), "--scan-interval", "200ms",
			"--selected-port", "0", "--debug-base", strconv.Itoa(ports + 100), "--metrics", metricsAddr, "--metrics-host", "farm-1",
			"--duration", "60s"})
		if err != nil {
			err = fmt.Errorf("%v\n%s", err, out.String())
		}
		done <- err
	}()

	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: ddmtui\n    static_configs:\n      - targets: ['%s']\n", metricsAddr)), 0o644); err != nil {
		t.Fatal(err)
	}
	prom := exec.Command(promBin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	var promLog strings.Builder
	prom.Stdout, prom.Stderr = &promLog, &promLog
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prom.Process.Kill(); prom.Wait() })

	query := func(q string) map[string]float64 {
		resp, err := http.Get("http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var r struct {
			Status string
			Data   struct {
				Result []struct {
					Metric map[string]string
					Value  [2]any
				}
			}
		}
		if json.Unmarshal(b, &r) != nil || r.Status != "success" {
			return nil
		}
		out := map[string]float64{}
		for _, s := range r.Data.Result {
			v, _ := strconv.ParseFloat(fmt.Sprint(s.Value[1]), 64)
			out[s.Metric["pid"]+"/"+s.Metric["app"]+"/"+s.Metric["host"]+"/"+s.Metric["state"]] = v
		}
		return out
	}
	want := map[string]float64{
		"611/com.example.metrics/farm-1/": float64(art.Heap().MaxBytes),
		"612/com.example.old/farm-1/":     float64(dalvik.Heap().MaxBytes),
	}
	deadline := time.Now().Add(20 * time.Second)
	var got, threads map[string]float64
	for time.Now().Before(deadline) {
		got = query(`ddmtui_vm_heap_max_bytes{job="ddmtui"}`)
		threads = query(`sum by (pid) (ddmtui_vm_threads{job="ddmtui"})`)
		if fmt.Sprint(got) == fmt.Sprint(want) && threads["611///"] > 0 && threads["612///"] > 0 {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Prometheus answered heap max %v, want %v\nprometheus log:\n%s", got, want, promLog.String())
	}
	if threads["611///"] != float64(len(art.Threads())) || threads["612///"] != float64(len(dalvik.Threads())) {
		t.Fatalf("threads per pid %v, simulator has %d and %d", threads, len(art.Threads()), len(dalvik.Threads()))
	}
	prom.Process.Kill()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The URL printed is the address asked for, with the port the listener got
// (issue 29 #13: --metrics 0.0.0.0:… printed http://[::]:…).
func TestMetricsURL(t *testing.T) {
	for _, tc := range []struct{ asked, got, want string }{
		{"0.0.0.0:9464", "[::]:9464", "http://0.0.0.0:9464/metrics (every interface)"},
		{"[::]:0", "[::]:40123", "http://[::]:40123/metrics (every interface)"},
		{"127.0.0.1:0", "127.0.0.1:40124", "http://127.0.0.1:40124/metrics"},
		{"[::1]:9464", "[::1]:9464", "http://[::1]:9464/metrics"},
	} {
		got, err := net.ResolveTCPAddr("tcp", tc.got)
		if err != nil {
			t.Fatal(err)
		}
		if u := metricsURL(tc.asked, got); u != tc.want {
			t.Errorf("metricsURL(%q, %s) = %q, want %q", tc.asked, tc.got, u, tc.want)
		}
	}
}
