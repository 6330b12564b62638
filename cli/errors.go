package cli

import "strings"

// cmdError is an error labelled for the command line, with the error it
// wraps still reachable through errors.Is and errors.As.
type cmdError struct {
	msg string
	err error
}

func (e *cmdError) Error() string { return e.msg }
func (e *cmdError) Unwrap() error { return e.err }

// wrapFor labels err with the command and what it was working on ("trace:
// FILE: ..."). Errors of the package of the same name already start with
// "cmd: "; that label is dropped so that each name appears once.
func wrapFor(cmd, what string, err error) error {
	inner := strings.TrimPrefix(err.Error(), cmd+": ")
	return &cmdError{msg: cmd + ": " + what + ": " + inner, err: err}
}
