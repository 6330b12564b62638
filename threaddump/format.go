package threaddump

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Style selects which release's text Format writes (spec §1, §2).
type Style int

// The releases Format can imitate.
const (
	// StyleDalvik is Dalvik as of Android 4.4: "DALVIK THREADS:", upper-case
	// states, three detail lines with sched before cgrp and a decimal handle,
	// "held by tid=N (name)", "#NN  pc" native frames after a "NATIVE
	// THREADS:" line for unattached threads.
	StyleDalvik Style = iota
	// StyleART7 is ART in Android 7 (2016): five detail lines, dsCount and no
	// flags, runtime sections before the threads.
	StyleART7
	// StyleART10 is ART in Android 8–10: flags= after dsCount.
	StyleART10
	// StyleART14 is ART since 2022–2023: ucsCount instead of dsCount,
	// timestamps with nanoseconds and UTC offset, runtime sections after the
	// threads.
	StyleART14
)

var styleNames = [...]string{StyleDalvik: "dalvik", StyleART7: "art7", StyleART10: "art10", StyleART14: "art14"}

// String returns "dalvik", "art7", "art10" or "art14".
func (s Style) String() string {
	if s < 0 || int(s) >= len(styleNames) {
		return "style(" + strconv.Itoa(int(s)) + ")"
	}
	return styleNames[s]
}

// ParseStyle is the inverse of Style.String.
func ParseStyle(name string) (Style, bool) {
	for i, n := range styleNames {
		if n == name {
			return Style(i), true
		}
	}
	return 0, false
}

// VM returns the kind of process the style writes.
func (s Style) VM() VM {
	if s == StyleDalvik {
		return VMDalvik
	}
	return VMART
}

const (
	dateLayoutSeconds = "2006-01-02 15:04:05"
	dateLayoutNanos   = "2006-01-02 15:04:05.000000000-0700"
)

// FormatDate renders t as the style prints the process header's date: local
// time to the second, or (StyleART14) with nanoseconds and the UTC offset.
func FormatDate(t time.Time, s Style) string {
	if s == StyleART14 {
		return t.Format(dateLayoutNanos)
	}
	return t.Format(dateLayoutSeconds)
}

// FormatDump writes every process of d, after d's lines from outside any
// process block.
func FormatDump(w io.Writer, d *Dump, s Style) error {
	bw := bufio.NewWriter(w)
	for _, l := range d.Unknown {
		bw.WriteString(l.Text + "\n")
	}
	for _, p := range d.Processes {
		writeProcess(bw, p, s)
	}
	return bw.Flush()
}

// Format writes one process block as the style's release prints it in
// answer to SIGQUIT: the header, runtime lines, each thread (attached ones
// first for Dalvik, which lists unattached threads after "NATIVE THREADS:"),
// and the end line. A native process (VMNative) is written as debuggerd
// writes it whatever the style. Text fields are written as they are; the
// model's Date should come from FormatDate.
//
// Fields the style does not print (flags= before Android 8, dsCount= in
// StyleART14, HZ= and stack= in Dalvik …) are left out, so a model round
// trips through Format and Parse when it only uses the style's fields.
func Format(w io.Writer, p *Process, s Style) error {
	bw := bufio.NewWriter(w)
	writeProcess(bw, p, s)
	return bw.Flush()
}

func writeProcess(w *bufio.Writer, p *Process, s Style) {
	fmt.Fprintf(w, "\n----- pid %d at %s -----\n", p.PID, p.Date)
	// Dalvik printed only Cmd line, debuggerd adds ABI; the other fields are
	// written by every style when the model has them, so none is lost.
	if p.CmdLine != "" {
		w.WriteString("Cmd line: " + p.CmdLine + "\n")
	}
	if p.OriginalCmdLine != "" {
		w.WriteString("Original command line: " + p.OriginalCmdLine + "\n")
	}
	if p.BuildFingerprint != "" {
		w.WriteString("Build fingerprint: '" + p.BuildFingerprint + "'\n")
	}
	if p.ABI != "" {
		w.WriteString("ABI: '" + p.ABI + "'\n")
	}
	if p.BuildType != "" {
		w.WriteString("Build type: " + p.BuildType + "\n")
	}
	if p.VM == VMNative {
		writeNativeProcess(w, p)
		return
	}
	if s == StyleDalvik {
		writeDalvikProcess(w, p)
		return
	}
	if s != StyleART14 {
		writeLines(w, p.RuntimeLines)
	}
	attached := 0
	for _, t := range p.Threads {
		if !t.Unattached {
			attached++
		}
	}
	fmt.Fprintf(w, "DALVIK THREADS (%d):\n", attached)
	for _, t := range p.Threads {
		writeARTThread(w, p, t, s)
	}
	if s == StyleART14 {
		writeLines(w, p.RuntimeLines)
		if len(p.RuntimeLines) > 0 {
			w.WriteString("\n")
		}
	}
	fmt.Fprintf(w, "----- end %d -----\n", p.PID)
}

func writeLines(w *bufio.Writer, lines []Line) {
	for _, l := range lines {
		w.WriteString(l.Text + "\n")
	}
}

// Dalvik's header (spec §1): an empty line after Cmd line, the JNI line,
// another empty line, "DALVIK THREADS:", the mutexes line and an empty line.
func writeDalvikProcess(w *bufio.Writer, p *Process) {
	w.WriteString("\n")
	var mutexes []Line
	for _, l := range p.RuntimeLines {
		if strings.HasPrefix(l.Text, "(mutexes:") {
			mutexes = append(mutexes, l)
		} else {
			w.WriteString(l.Text + "\n")
		}
	}
	w.WriteString("\nDALVIK THREADS:\n")
	writeLines(w, mutexes)
	w.WriteString("\n")
	for _, t := range p.Threads {
		if !t.Unattached {
			writeDalvikThread(w, p, t)
		}
	}
	first := true
	for _, t := range p.Threads {
		if t.Unattached {
			if first {
				w.WriteString("NATIVE THREADS:\n")
				first = false
			}
			writeDalvikThread(w, p, t)
		}
	}
	fmt.Fprintf(w, "----- end %d -----\n", p.PID)
}

// A native process as debuggerd writes it (spec §1): after the header, each thread
// as `"name" sysTid=N` and its `#NN pc` frames.
func writeNativeProcess(w *bufio.Writer, p *Process) {
	writeLines(w, p.RuntimeLines)
	w.WriteString("\n")
	for _, t := range p.Threads {
		fmt.Fprintf(w, "\"%s\" sysTid=%d\n", t.Name, t.SysTID)
		if len(t.HeldMutexes) > 0 {
			writeHeldMutexes(w, t)
		}
		writeStack(w, p, t, "    ", StyleART10, "#%02d pc %s  %s")
		writeLines(w, t.Unknown)
		w.WriteString("\n")
	}
	fmt.Fprintf(w, "----- end %d -----\n", p.PID)
}

func writeHeader(w *bufio.Writer, t *Thread) {
	w.WriteString(`"` + t.Name + `"`)
	if t.Daemon {
		w.WriteString(" daemon")
	}
	fmt.Fprintf(w, " prio=%d", t.Priority)
	if t.Unattached {
		w.WriteString(" (not attached)")
	} else {
		fmt.Fprintf(w, " tid=%d", t.TID)
		if t.State != "" {
			w.WriteString(" " + t.State)
		}
	}
	for _, f := range t.HeaderFlags {
		w.WriteString(" " + f)
	}
	w.WriteString("\n")
}

// writeARTThread writes the ART block of spec §2: header, detail lines in
// the style's order, frames, lock lines, an empty line.
func writeARTThread(w *bufio.Writer, p *Process, t *Thread, s Style) {
	writeHeader(w, t)
	if t.Unattached {
		fmt.Fprintf(w, "  | sysTid=%d nice=%d cgrp=%s\n", t.SysTID, t.Nice, t.Cgroup)
	} else {
		fmt.Fprintf(w, "  | group=\"%s\" sCount=%d", t.Group, t.SuspendCount)
		switch s {
		case StyleART7:
			fmt.Fprintf(w, " dsCount=%d", t.DebugSuspendCount)
		case StyleART10:
			fmt.Fprintf(w, " dsCount=%d flags=%d", t.DebugSuspendCount, t.Flags)
		default:
			fmt.Fprintf(w, " ucsCount=%d flags=%d", t.UserCodeSuspendCount, t.Flags)
		}
		fmt.Fprintf(w, " obj=%s self=%s\n", t.Obj, t.Self)
		fmt.Fprintf(w, "  | sysTid=%d nice=%d cgrp=%s sched=%s handle=%s\n", t.SysTID, t.Nice, t.Cgroup, t.Sched, t.Handle)
	}
	fmt.Fprintf(w, "  | state=%s schedstat=( %s ) utm=%d stm=%d core=%d HZ=%d\n", t.KernelState, t.SchedStat, t.Utime, t.Stime, t.Core, t.HZ)
	if !t.Unattached {
		fmt.Fprintf(w, "  | stack=%s stackSize=%s\n", t.Stack, t.StackSize)
	}
	if !t.Unattached || len(t.HeldMutexes) > 0 {
		writeHeldMutexes(w, t)
	}
	writeExtraDetails(w, t)
	writeStack(w, p, t, "  ", s, "native: #%02d pc %s  %s")
	writeLines(w, t.Unknown)
	w.WriteString("\n")
}

// writeDalvikThread writes Dalvik's block (spec §2, Dalvik column), or for
// an unattached thread the short native-thread block.
func writeDalvikThread(w *bufio.Writer, p *Process, t *Thread) {
	if t.Unattached {
		fmt.Fprintf(w, "\"%s\" sysTid=%d nice=%d sched=%s cgrp=%s\n", t.Name, t.SysTID, t.Nice, t.Sched, t.Cgroup)
	} else {
		writeHeader(w, t)
		fmt.Fprintf(w, "  | group=\"%s\" sCount=%d dsCount=%d obj=%s self=%s\n", t.Group, t.SuspendCount, t.DebugSuspendCount, t.Obj, t.Self)
		fmt.Fprintf(w, "  | sysTid=%d nice=%d sched=%s cgrp=%s handle=%s\n", t.SysTID, t.Nice, t.Sched, t.Cgroup, t.Handle)
	}
	w.WriteString("  | ")
	if t.KernelState != "" {
		w.WriteString("state=" + t.KernelState + " ")
	}
	fmt.Fprintf(w, "schedstat=( %s ) utm=%d stm=%d core=%d\n", t.SchedStat, t.Utime, t.Stime, t.Core)
	if len(t.HeldMutexes) > 0 { // Dalvik has none; written when the model has them
		writeHeldMutexes(w, t)
	}
	writeExtraDetails(w, t)
	writeStack(w, p, t, "  ", StyleDalvik, "#%02d  pc %s  %s")
	writeLines(w, t.Unknown)
	w.WriteString("\n")
}

func writeHeldMutexes(w *bufio.Writer, t *Thread) {
	w.WriteString("  | held mutexes=")
	for _, m := range t.HeldMutexes {
		w.WriteString(" " + m)
	}
	w.WriteString("\n")
}

// writeExtraDetails writes each unknown detail token on a `|` line of its
// own, so that it parses back alone, whatever the tokens around it were.
func writeExtraDetails(w *bufio.Writer, t *Thread) {
	for _, d := range t.ExtraDetails {
		w.WriteString("  | ")
		if d.Key != "" {
			w.WriteString(d.Key + "=")
		}
		w.WriteString(d.Value + "\n")
	}
}

// writeStack writes the frames with each lock line after the frame it
// belongs to (spec §2.4).
func writeStack(w *bufio.Writer, p *Process, t *Thread, indent string, s Style, nativeLayout string) {
	writeLocks := func(frame int) {
		for _, l := range t.Locks {
			if l.Frame == frame || (frame < 0 && l.Frame < 0) || (frame == len(t.Frames)-1 && l.Frame > frame) {
				w.WriteString(indent + lockText(p, l, s) + "\n")
			}
		}
	}
	writeLocks(-1)
	for i, f := range t.Frames {
		w.WriteString(indent)
		switch f.Kind {
		case FrameJava:
			src := f.Source
			if f.IsNativeMethod() {
				src = "Native method"
				if s == StyleDalvik {
					src = "Native Method"
				}
			}
			w.WriteString("at " + f.qualifiedMethod() + "(" + src + ")")
		case FrameNative:
			w.WriteString(nativeFrameText(f, nativeLayout))
		case FrameKernel:
			w.WriteString("kernel: " + f.Text)
		default:
			w.WriteString(f.Text)
		}
		w.WriteString("\n")
		writeLocks(i)
	}
}

func nativeFrameText(f Frame, layout string) string {
	return fmt.Sprintf(layout, f.Index, f.PC, f.Location)
}

// lockText renders a lock line in the style's spelling: ART's "held by
// thread N", Dalvik's "held by tid=N (name)" with the owner's name looked up
// when the model lacks it.
func lockText(p *Process, l Lock, s Style) string {
	text := "- " + l.Kind.String() + " " + l.ObjectText()
	if l.HeldBy == 0 {
		return text
	}
	if s != StyleDalvik {
		return text + " held by thread " + strconv.Itoa(l.HeldBy)
	}
	name := l.HeldByName
	if name == "" {
		if owner := p.Thread(l.HeldBy); owner != nil {
			name = owner.Name
		}
	}
	text += " held by tid=" + strconv.Itoa(l.HeldBy)
	if name != "" {
		text += " (" + name + ")"
	}
	return text
}
