package cli

import (
	"errors"
	"fmt"
	"io"
	"syscall"
)

// outputWriter is the tool's standard output. The first write that fails
// (a closed pipe: EPIPE, the tool ignoring SIGPIPE while it runs; a full
// device: ENOSPC) is remembered and reported once through onFail; later
// writes are dropped and succeed, so that the run goes on writing its
// result files: they are complete on disk before each report is printed.
// The exit status then says the output was lost (exitStatus).
type outputWriter struct {
	w      io.Writer
	err    error
	onFail func(error)
}

// Write implements io.Writer.
func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return len(p), nil
	}
	if _, err := o.w.Write(p); err != nil {
		o.err = err
		if o.onFail != nil {
			o.onFail(err)
		}
	}
	return len(p), nil
}

// stdoutFailed reports whether a write to standard output failed.
func (r *runner) stdoutFailed() bool { return r.out != nil && r.out.err != nil }

// writesFiles reports whether the run keeps its phases in files
// (-results, -csvstats, -csvstream), which go on being written when
// standard output fails.
func (r *runner) writesFiles() bool {
	return r.o != nil && (r.o.resultsDir != "" || r.o.csvStats != "" || r.o.csvStream != "")
}

// stdoutLost says on standard error that the reports are no longer
// printed, and what happens to the run.
func (r *runner) stdoutLost(err error) {
	what := "the run stops: no result file (-results, -csvstats, -csvstream) would keep the phases to come"
	if r.writesFiles() {
		what = "the run goes on and its result files are still written"
	}
	fmt.Fprintf(r.stderr, "linkbench: standard output: %v: the reports are no longer printed; %s\n", err, what)
}

// exitStatus is the run's exit status given the status code its steps
// returned: code when it is not 0 (a failure, a usage error or a signal
// say more), else 141 (128 + SIGPIPE) when standard output was closed, 1
// when it failed otherwise (a full device) or an output file could not be
// completed, and 0.
func (r *runner) exitStatus(code int) int {
	switch {
	case code != 0:
		return code
	case r.stdoutFailed() && errors.Is(r.out.err, syscall.EPIPE):
		return 128 + int(syscall.SIGPIPE)
	case r.stdoutFailed() || r.outputFailed:
		return 1
	}
	return 0
}
