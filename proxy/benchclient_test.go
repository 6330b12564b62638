package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
)

// The round-trip benchmarks run their client in a process of its own, as a
// debugger is: a client in the proxy's process would be woken by the
// proxy's own threads, a wake-up that no debugger gets, and its work would
// be counted as the proxy's. The test binary starts itself again with
// benchClientEnv set; TestMain hands that process to runBenchClient.
//
// The client sends the command back to back in bursts of benchBurst, one
// leg at a time, rotating which goes first, so that every leg sees the same
// machine load. Around each burst it tells this process which leg it is
// on (a line on its stdout, answered on its stdin, outside the timed part),
// so that this process can count its own CPU time per leg: the relay's or
// the proxy's, with the monitor's polling in the background.

// benchClientEnv holds the client's job (benchJob, as JSON).
const benchClientEnv = "DDMTUI_PROXY_BENCH_CLIENT"

// benchBurst is the number of commands sent back to back on one leg.
const benchBurst = 50

// benchJob is what the client process is asked to do.
type benchJob struct {
	Addrs [3]string `json:"addrs"`
	N     int       `json:"n"` // commands per leg
	Set   uint8     `json:"set"`
	Cmd   uint8     `json:"cmd"`
	Data  []byte    `json:"data"`
}

// benchResult is what it reports: each command's time, by leg.
type benchResult struct {
	Times [3][]time.Duration `json:"times"`
	Err   string             `json:"err,omitempty"`
}

// runBenchClient is the client process: it runs the job in the environment
// and reports on stdout. It returns the exit code.
func runBenchClient(spec string) int {
	var job benchJob
	res := benchResult{}
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		res.Err = err.Error()
	} else if err := job.run(bufio.NewReader(os.Stdin), os.Stdout, &res); err != nil {
		res.Err = err.Error()
	}
	out, _ := json.Marshal(res)
	fmt.Printf("R %s\n", out)
	if res.Err != "" {
		return 1
	}
	return 0
}

func (job benchJob) run(in *bufio.Reader, out io.Writer, res *benchResult) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var legs [3]*jdwp.Conn
	for j, addr := range job.Addrs {
		c, err := dialAnswering(ctx, addr)
		if err != nil {
			return err
		}
		defer c.Close()
		legs[j] = c
	}
	bg := context.Background()
	send := func(c *jdwp.Conn) error {
		_, err := c.Request(bg, job.Set, job.Cmd, job.Data)
		return err
	}
	for i := 0; i < 3; i++ { // warm-up
		for _, c := range legs {
			if err := send(c); err != nil {
				return err
			}
		}
	}
	tell := func(what string, j int) error {
		if _, err := fmt.Fprintf(out, "%s %d\n", what, j); err != nil {
			return err
		}
		_, err := in.ReadString('\n')
		return err
	}
	for j := range res.Times {
		res.Times[j] = make([]time.Duration, 0, job.N)
	}
	for r := 0; len(res.Times[2]) < job.N; r++ {
		for k := 0; k < 3; k++ {
			j := (r + k) % 3
			n := min(benchBurst, job.N-len(res.Times[j]))
			if err := tell("S", j); err != nil {
				return err
			}
			for i := 0; i < n; i++ {
				t0 := time.Now()
				if err := send(legs[j]); err != nil {
					return err
				}
				res.Times[j] = append(res.Times[j], time.Since(t0))
			}
			if err := tell("E", j); err != nil {
				return err
			}
		}
	}
	return nil
}

// clientRoundTrips runs set/cmd with data b.N times per leg in a client
// process, and returns each leg's times and this process's usage while the
// client was on that leg.
func clientRoundTrips(b *testing.B, jp *jvmSet, set, cmd uint8, data []byte) (times [3]legTimes, use [3]legUsage) {
	jp.hangUp() // the VMs and the proxy's port take one debugger at a time
	spec, err := json.Marshal(benchJob{Addrs: jp.addrs, N: b.N, Set: set, Cmd: cmd, Data: data})
	if err != nil {
		b.Fatal(err)
	}
	cmdp := exec.Command(os.Args[0], "-test.run", "^$")
	cmdp.Env = append(os.Environ(), benchClientEnv+"="+string(spec))
	cmdp.Stderr = os.Stderr
	stdin, err := cmdp.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmdp.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmdp.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmdp.Wait()
	defer stdin.Close()
	b.ResetTimer()
	var res benchResult
	var c0 time.Duration
	var s0 int64
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Text()
		var what string
		var j int
		if _, err := fmt.Sscanf(line, "%s %d", &what, &j); err == nil && (what == "S" || what == "E") && j >= 0 && j < 3 {
			c, s := usage()
			if what == "S" {
				c0, s0 = c, s
			} else {
				use[j].cpu += c - c0
				use[j].switches += s - s0
			}
			if _, err := io.WriteString(stdin, "\n"); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "R "); ok {
			if err := json.Unmarshal([]byte(rest), &res); err != nil {
				b.Fatal(err)
			}
			break
		}
	}
	b.StopTimer()
	switch {
	case res.Err != "":
		b.Fatalf("the client process: %s", res.Err)
	case res.Times[2] == nil:
		b.Fatal(errors.Join(errors.New("the client process reported nothing"), sc.Err()))
	}
	for j := range times {
		times[j] = res.Times[j]
	}
	return times, use
}
