package adbd

import "strings"

// execService is exec:<command> (Android 5+): the command's output with no
// pty, then close. The simulated shell never adds a pty's "\r\n", so it
// runs the same commands as shell:.
func (c *conn) execService(cmd string) (func(*stream), bool) {
	if strings.TrimSpace(cmd) == "" {
		return nil, false
	}
	return func(st *stream) { c.shell(st, cmd) }, true
}

// syncServiceFor is sync:, served when the Device has files.
func (c *conn) syncServiceFor() (func(*stream), bool) {
	fsrv, ok := c.srv.dev.(FileServer)
	if !ok {
		return nil, false
	}
	return func(st *stream) { c.syncService(st, fsrv.Files()) }, true
}

// features is what the CNXN banner announces (Options.Features).
func (s *Server) features() []string {
	if s.opts.Features != nil {
		return s.opts.Features
	}
	if _, ok := s.dev.(FileServer); ok {
		return DefaultFeatures
	}
	return nil
}
