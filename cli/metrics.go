package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/metrics"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
)

// metricsFlags are serve's Prometheus exporter flags.
func metricsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "metrics", Usage: "serve Prometheus metrics at http://ADDR/metrics (ADDR: HOST:PORT, or :PORT for loopback)"},
		&cli.StringFlag{Name: "metrics-host", Usage: "the host label of every VM series (default: this machine's hostname)"},
	}
}

// startMetrics starts the exporter when --metrics is given. The returned
// wait blocks until it has stopped (after ctx ends); it is a no-op without
// --metrics.
func startMetrics(ctx context.Context, c *cli.Context, engine *monitor.Engine, keep headless.Keep) (wait func(), err error) {
	addr := c.String("metrics")
	if addr == "" {
		return func() {}, nil
	}
	addr, err = metrics.ListenAddr(addr)
	if err != nil {
		return nil, badValue(c, &cmdError{msg: "--metrics: " + strings.TrimPrefix(err.Error(), "metrics: "), err: err})
	}
	host, _, _ := net.SplitHostPort(addr)
	if !proxy.IsLoopback(host) {
		fmt.Fprintf(c.App.ErrWriter, "ddmtui: warning: metrics listen on %s: anyone who can reach it can read your VMs' names and figures\n", addr)
	}
	label := c.String("metrics-host")
	if label == "" {
		label, _ = os.Hostname()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics: %w", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "ddmtui: metrics at %s\n", metricsURL(addr, ln.Addr()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		col := metrics.NewCollector(engine, label)
		col.Keep = keep
		metrics.Serve(ctx, ln, metrics.Handler(metrics.Registry(col)))
	}()
	return func() { <-done }, nil
}

// metricsURL is where the metrics are, as the user named the address: the
// host asked for (an unspecified one, 0.0.0.0 or ::, is every interface,
// which the listener would print as [::]) and the port it got.
func metricsURL(asked string, got net.Addr) string {
	host, _, err := net.SplitHostPort(asked)
	_, port, err2 := net.SplitHostPort(got.String())
	if err != nil || err2 != nil {
		return "http://" + got.String() + "/metrics"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/metrics"
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		url += " (every interface)"
	}
	return url
}
