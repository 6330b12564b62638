package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/simpleperf"
)

// CPU samples of the selected process through simpleperf (issue 36), the
// `p` key's other way: a profileable process without JDWP is sampled; on
// a debuggable VM that could be sampled too, `p` asks which (method trace
// or samples) the first time and keeps the answer for the session.

// SampleDuration is how long the dashboard's `p` samples a process.
const SampleDuration = 10 * time.Second

// profileChoice is the answer to `p`'s question on a VM that can do both.
type profileChoice int

const (
	choiceAsk profileChoice = iota
	choiceTrace
	choiceSamples
)

// canSample says whether vm's process can be sampled with simpleperf: on
// an adb device of Android 10 or later, profileable or debuggable.
func canSample(vm monitor.VM) bool {
	return strings.HasPrefix(vm.Source, "adb:") && vm.API >= devshell.SampleAPI && (vm.Profileable || vm.Debuggable)
}

// profileSelected is `p` on a VM that is not being traced: samples for a
// process without DDM that can be sampled, the question (or the session's
// answer) where both work, the method trace otherwise. It reports whether
// it took the key; false leaves it to the method trace.
func (p *vmPane) profileSelected() bool {
	e := p.env
	vm, ok := e.m.selected()
	if !ok || e.cfg.Controller == nil || e.m.isGone(vm.Key) {
		return false
	}
	switch {
	case !vm.DDM && vm.Profileable && !canSample(vm):
		e.flash(fmt.Sprintf("CPU samples need Android 10 (API 29) or later over adb; %s is on API %d", appLabel(vm), vm.API))
		return true
	case !vm.DDM && canSample(vm):
		p.sample(vm)
		return true
	case !canSample(vm) || p.profileChoice == choiceTrace:
		return false
	case p.profileChoice == choiceSamples:
		p.sample(vm)
		return true
	}
	e.flash(fmt.Sprintf("profile %s: t method trace, s CPU samples (simpleperf, %v); remembered for this session", appLabel(vm), SampleDuration))
	e.nav.choose(map[rune]func(){
		't': func() { p.profileChoice = choiceTrace; p.toggleProfiling() },
		's': func() { p.profileChoice = choiceSamples; p.sample(vm) },
	})
	return true
}

// sample records SampleDuration of vm's CPU through the one save path and
// opens the saved file in the profile viewer; C cancels it.
func (p *vmPane) sample(vm monitor.VM) {
	e := p.env
	ctrl := e.cfg.Controller
	app := appLabel(vm)
	path := savePath(e.cfg.TraceDir, app, e.now(), ".trace")
	if err := savefile.Check(path); err != nil {
		e.flash("cannot sample: " + err.Error())
		return
	}
	started := e.work.job("trace", jobQueue, SampleDuration+3*time.Minute, func(ctx context.Context) {
		var sp *simpleperf.Profile
		_, err := savefile.Save(ctx, path, savefile.Samples(&sp), func(ctx context.Context, w *savefile.Writer) error {
			_, err := ctrl.VM(vm.Key).RecordSamples(ctx, monitor.SampleOptions{Duration: SampleDuration}, w)
			return err
		})
		if errors.Is(err, context.Canceled) && e.work.bg().Err() == nil {
			e.work.post(func() { e.flash("samples of " + app + " cancelled; nothing saved") })
			return
		}
		e.work.post(func() {
			if err != nil {
				e.flash("sampling failed: " + err.Error())
				return
			}
			e.flash(fmt.Sprintf("%d samples saved to %s", sp.Trace.Sampling.Samples, path))
			e.views.showProfile(sp.Trace, path)
		})
	})
	if !started {
		e.flash("busy: a trace or samples are being saved")
		return
	}
	e.work.markSaving("trace", "the samples of "+app)
	e.flash(fmt.Sprintf("sampling %s for %v with simpleperf… (C cancels)", app, SampleDuration))
}
