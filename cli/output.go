package cli

import (
	"bufio"
	"context"
	"io"
	"strconv"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
)

// writeOutput writes to the file out (through the save path: a
// temporary file beside it, renamed once complete, so a failure leaves an
// existing out as it was), or to stdout for "-", through a buffer.
func writeOutput(stdout io.Writer, out string, write func(io.Writer) error) error {
	if out == "-" {
		bw := bufio.NewWriter(stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	_, err := savefile.Save(context.Background(), out, savefile.Options{}, func(_ context.Context, w *savefile.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
	return err
}

// vmLabel names a VM for messages: "com.example.app (pid 42)", or "pid 42"
// while its name is not known.
func vmLabel(vm monitor.VM) string {
	if vm.App == "" {
		return "pid " + strconv.Itoa(vm.PID)
	}
	return safetext.Terminal(vm.App) + " (pid " + strconv.Itoa(vm.PID) + ")"
}
